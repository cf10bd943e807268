package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Code guessing is limited twice: per client address, so that one
// client cannot try many codes, and overall, so that many addresses
// together cannot either. A code also dies after maxCodeFailures wrong
// codes (pairing.go); the limits keep the attempts slow besides.
const (
	perAddressRate  = rate.Limit(5.0 / 60) // 5 a minute
	perAddressBurst = 5
	overallRate     = rate.Limit(30.0 / 60) // 30 a minute
	overallBurst    = 10
	// maxAddresses bounds the table of per-address limiters; past it, the
	// table starts again (the overall limit still holds).
	maxAddresses = 4096
)

type guessLimiter struct {
	now func() time.Time

	mu      sync.Mutex
	overall *rate.Limiter
	perAddr map[string]*rate.Limiter
}

func newGuessLimiter(now func() time.Time) *guessLimiter {
	return &guessLimiter{now: now, overall: rate.NewLimiter(overallRate, overallBurst), perAddr: map[string]*rate.Limiter{}}
}

// allow reports whether a code from addr may be tried now.
func (g *guessLimiter) allow(addr string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	l := g.perAddr[addr]
	if l == nil {
		if len(g.perAddr) >= maxAddresses {
			g.perAddr = map[string]*rate.Limiter{}
		}
		l = rate.NewLimiter(perAddressRate, perAddressBurst)
		g.perAddr[addr] = l
	}
	now := g.now()
	// The address's allowance is spent first, so a client over its own
	// limit does not use up everyone's.
	return l.AllowN(now, 1) && g.overall.AllowN(now, 1)
}
