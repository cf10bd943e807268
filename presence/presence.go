// Package presence knows which clients are looking at which session: the
// iOS app's "other devices viewing" (client/session/focus, the
// session_joined and session_left events, sessions[].viewers), and, for
// features to come such as notifications, whether anyone is watching a
// session right now (Present).
//
// A viewer is a connection that focused a session and is active: it says
// so with client/session/focus, each time the user opens a session, and
// says active:false when its page is hidden (the console reports
// document.visibilityState). A connection views one session at a time;
// focusing another, going inactive or disconnecting leaves the previous one.
package presence

import (
	"slices"
	"sync"
)

// Tracker holds every connection's focus. Its lock is a leaf: it calls
// nothing while holding it.
type Tracker struct {
	mu        sync.Mutex
	byClient  map[string]string              // client id → the session it views
	bySession map[string]map[string]struct{} // session id → its viewers' client ids
	reports   map[string]struct{}            // clients that have said where they look
}

// New creates an empty Tracker.
func New() *Tracker {
	return &Tracker{byClient: map[string]string{}, bySession: map[string]map[string]struct{}{},
		reports: map[string]struct{}{}}
}

// Change is what a focus or a leave changed, for the server to tell the
// viewers concerned.
type Change struct {
	// Viewers of the session focused, the client included; empty when the
	// client went inactive.
	Viewers []string
	// Joined: the client was not viewing the session before, so its other
	// viewers hear session_joined.
	Joined bool
	// Left is the session the client no longer views ("" if none), and
	// Remaining its viewers now: they hear session_left.
	Left      string
	Remaining []string
}

// Focus records that client views sessionID, or, with active false, that
// it views nothing now (its page is hidden).
func (t *Tracker) Focus(client, sessionID string, active bool) Change {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reports[client] = struct{}{}
	var ch Change
	prev, had := t.byClient[client]
	if had && (prev != sessionID || !active) {
		ch.Left, ch.Remaining = prev, t.removeLocked(client, prev)
	}
	if !active {
		return ch
	}
	ch.Joined = !had || prev != sessionID
	t.byClient[client] = sessionID
	vs := t.bySession[sessionID]
	if vs == nil {
		vs = map[string]struct{}{}
		t.bySession[sessionID] = vs
	}
	vs[client] = struct{}{}
	ch.Viewers = sorted(vs)
	return ch
}

// Leave forgets client (its connection closed); the Change says which
// session it left.
func (t *Tracker) Leave(client string) Change {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.reports, client)
	prev, had := t.byClient[client]
	if !had {
		return Change{}
	}
	return Change{Left: prev, Remaining: t.removeLocked(client, prev)}
}

func (t *Tracker) removeLocked(client, sessionID string) []string {
	delete(t.byClient, client)
	vs := t.bySession[sessionID]
	delete(vs, client)
	if len(vs) == 0 {
		delete(t.bySession, sessionID)
		return []string{}
	}
	return sorted(vs)
}

// Viewers lists the clients viewing sessionID now, sorted.
func (t *Tracker) Viewers(sessionID string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	vs := t.bySession[sessionID]
	if len(vs) == 0 {
		return nil
	}
	return sorted(vs)
}

// Present reports whether someone is viewing sessionID with its page in
// front: a notification about it would tell them nothing new.
func (t *Tracker) Present(sessionID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.bySession[sessionID]) > 0
}

// Reports tells whether client has said where it looks (it called
// client/session/focus): its focus, not its watches, then says whether it
// is present.
func (t *Tracker) Reports(client string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.reports[client]
	return ok
}

func sorted(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Without is list without one client: the "other" viewers as one of them
// sees them.
func Without(list []string, client string) []string {
	out := make([]string, 0, len(list))
	for _, c := range list {
		if c != client {
			out = append(out, c)
		}
	}
	return out
}
