package auth

import (
	"crypto/subtle"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// CodeTTL is how long a 6-digit code may be typed: short, since a code is
// only a million guesses wide.
const CodeTTL = 5 * time.Minute

// maxCodeFailures is how many wrong codes a live code survives: every
// wrong code typed counts against every live code, so that guesses spread
// over many addresses still kill it long before they could find it.
const maxCodeFailures = 5

// Pairing errors.
var (
	ErrBadCode       = errors.New("wrong or expired code")
	ErrRejected      = errors.New("pairing request rejected")
	ErrNoSuchRequest = errors.New("no such pairing request")
)

// Ticket is what `cdevd pair` shows: the pairing token (for the QR code),
// the 6-digit code (to type), and when they expire.
type Ticket struct {
	RequestID        string `json:"request_id"`
	PairingToken     string `json:"pairing_token"`
	Code             string `json:"code"`
	ExpiresAt        string `json:"expires_at"`
	CodeExpiresAt    string `json:"code_expires_at"`
	Name             string `json:"name"`
	Scope            Scope  `json:"scope"`
	ApprovalRequired bool   `json:"approval_required"`
}

// Request is a pairing as the host sees it while deciding.
type Request struct {
	ID        string `json:"request_id"`
	Name      string `json:"name"`
	Scope     Scope  `json:"scope"`
	Status    string `json:"status"` // "waiting" (not yet presented), "pending_approval", "approved"
	Client    string `json:"client,omitempty"`
	Address   string `json:"address,omitempty"`
	ExpiresAt string `json:"expires_at"`
}

type pairing struct {
	id          string
	tokenHash   string // the pairing token's; "" once exchanged
	code        string // "" once typed, or dead
	codeExpires time.Time
	codeFails   int
	expires     time.Time
	name        string
	scope       Scope
	// status: "waiting" until first presented, then "pending_approval"
	// (approval required), "approved", or "rejected".
	status         string
	client, remote string
}

// pairings holds the pairings in progress, in memory only: they live
// minutes, and a restart simply makes the user pair again.
type pairings struct {
	now      func() time.Time
	approval bool

	mu   sync.Mutex
	byID map[string]*pairing
}

func newPairings(now func() time.Time, approval bool) *pairings {
	return &pairings{now: now, approval: approval, byID: map[string]*pairing{}}
}

// prune drops expired pairings; the caller holds mu.
func (ps *pairings) prune() {
	now := ps.now()
	for id, p := range ps.byID {
		if !now.Before(p.expires) {
			delete(ps.byID, id)
		}
	}
}

// create starts a pairing for a device to be called name, with scope.
func (ps *pairings) create(name string, scope Scope) Ticket {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.prune()
	now := ps.now()
	p := &pairing{id: newID("pair_"), expires: now.Add(PairingTTL), codeExpires: now.Add(CodeTTL),
		name: name, scope: scope, status: "waiting"}
	for p.code == "" || ps.codeInUse(p.code) {
		p.code = newCode()
	}
	tok := newToken(PairingPrefix)
	p.tokenHash = hashToken(tok)
	ps.byID[p.id] = p
	return Ticket{RequestID: p.id, PairingToken: tok, Code: p.code, ExpiresAt: ISOTime(p.expires),
		CodeExpiresAt: ISOTime(p.codeExpires), Name: name, Scope: scope, ApprovalRequired: ps.approval}
}

func (ps *pairings) codeInUse(code string) bool {
	for _, p := range ps.byID {
		if p.code == code {
			return true
		}
	}
	return false
}

// redeemCode trades a live code for a new pairing token (the QR's dies:
// one pairing, one device). A wrong code counts against every live code.
func (ps *pairings) redeemCode(code string) (string, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.prune()
	now := ps.now()
	for _, p := range ps.byID {
		if p.code != "" && now.Before(p.codeExpires) && subtle.ConstantTimeCompare([]byte(p.code), []byte(code)) == 1 {
			tok := newToken(PairingPrefix)
			p.code, p.tokenHash = "", hashToken(tok)
			return tok, nil
		}
	}
	for _, p := range ps.byID {
		if p.code == "" {
			continue
		}
		if p.codeFails++; p.codeFails >= maxCodeFailures {
			p.code = ""
		}
	}
	return "", ErrBadCode
}

// exchange looks at a pairing token presented by a device. It returns the
// pairing to turn into a device (and forgets it), or the pending request
// while the host has not decided, or an error.
func (ps *pairings) exchange(tok, client, remote string) (done *pairing, pending *Request, err error) {
	h := hashToken(tok)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.prune()
	for _, p := range ps.byID {
		if p.tokenHash == "" || subtle.ConstantTimeCompare([]byte(p.tokenHash), []byte(h)) != 1 {
			continue
		}
		p.code = "" // presented: the code has done its work, or is no longer needed
		switch {
		case p.status == "rejected":
			delete(ps.byID, p.id)
			return nil, nil, ErrRejected
		case p.status == "approved" || !ps.approval:
			delete(ps.byID, p.id)
			return p, nil, nil
		}
		p.status, p.client, p.remote = "pending_approval", client, hostOf(remote)
		r := p.request()
		return nil, &r, nil
	}
	return nil, nil, ErrInvalidToken
}

func (p *pairing) request() Request {
	return Request{ID: p.id, Name: p.name, Scope: p.scope, Status: p.status, Client: p.client,
		Address: p.remote, ExpiresAt: ISOTime(p.expires)}
}

// decide approves or rejects a pairing request.
func (ps *pairings) decide(id string, approve bool) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.prune()
	p := ps.byID[id]
	if p == nil {
		return ErrNoSuchRequest
	}
	p.status = "rejected"
	if approve {
		p.status = "approved"
	}
	return nil
}

// list returns the pairings in progress.
func (ps *pairings) list() []Request {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.prune()
	out := make([]Request, 0, len(ps.byID))
	for _, p := range ps.byID {
		out = append(out, p.request())
	}
	slices.SortFunc(out, func(a, b Request) int { return strings.Compare(a.ExpiresAt+a.ID, b.ExpiresAt+b.ID) })
	return out
}
