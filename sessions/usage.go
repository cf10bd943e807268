package sessions

// A runtime's rate limits and a session's context window, as the CLI
// reports them (runtimes.RateLimitsUpdated, runtimes.ContextUpdated).

import (
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// LimitsBook keeps every runtime's rate-limit windows (usage.Limits).
// Observe is called under a session's lock: it must only take a leaf lock.
type LimitsBook interface {
	// Observe merges a report of agentType's windows and returns them all
	// after the merge, and whether they changed.
	Observe(agentType string, windows []rpc.RateLimitWindow, at time.Time) ([]rpc.RateLimitWindow, bool)
}

// onRateLimitsLocked records a report of the runtime's limits and, when it
// changes what is known, tells the session's watchers.
func (s *session) onRateLimitsLocked(ev runtimes.RateLimitsUpdated) {
	book := s.e.cfg.Limits
	if book == nil || len(ev.Windows) == 0 {
		return
	}
	windows, changed := book.Observe(s.agentType, ev.Windows, time.Now())
	if !changed {
		return
	}
	s.emitLocked(rpc.EventRateLimits, func(h rpc.EventHeader) any {
		return rpc.RateLimitsEvent{EventHeader: h, Windows: windows}
	})
}

// onContextLocked keeps how full the context is, for session/state, and
// tells the watchers.
func (s *session) onContextLocked(ev runtimes.ContextUpdated) {
	c := ev.Context
	if c.UsedTokens < 0 || c.WindowTokens < 0 {
		return
	}
	c.UsedPercent = 0
	if c.WindowTokens > 0 {
		c.UsedPercent = min(100, float64(c.UsedTokens)*100/float64(c.WindowTokens))
		c.UsedPercent = float64(int64(c.UsedPercent*10+0.5)) / 10 // a tenth of a percent is plenty
	}
	c.UpdatedAt = rpc.FormatTime(time.Now())
	s.context = &c
	s.emitLocked(rpc.EventContextUsage, func(h rpc.EventHeader) any {
		return rpc.ContextUsageEvent{EventHeader: h, ContextUsage: c}
	})
}

// contextNow is a copy of the last context report, nil if none.
func (s *session) contextNow() *rpc.ContextUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.context == nil {
		return nil
	}
	c := *s.context
	return &c
}
