package sessions

import (
	"context"
	"time"
)

// A session that cdevd no longer runs keeps its state for the daemon's
// life (clients may still ask for it, send to it, watch it), but its replay
// buffer, up to ReplayMax events, would make memory grow with every session
// ever run. Once a session has had no process and no watcher for
// ReplayAge, the buffer goes (a watcher that comes back with an older
// since_seq is told of the gap and reloads with messages), and so do the
// streamed messages its transcript has caught up with.

// armQuietLocked schedules the release check, if none is scheduled.
func (s *session) armQuietLocked() {
	if s.quiet != nil || s.external {
		return
	}
	s.quiet = time.AfterFunc(s.e.cfg.ReplayAge, s.releaseIfQuiet)
}

// releaseIfQuiet releases the buffer of a session quiet for ReplayAge, or
// checks again when it will have been.
func (s *session) releaseIfQuiet() {
	s.mu.Lock()
	s.quiet = nil
	if s.rt != nil || s.turnOpen || len(s.watchers) > 0 || len(s.catchingUp) > 0 || s.gone {
		s.mu.Unlock()
		return // busy again; the next exit or unwatch arms the check anew
	}
	since := s.lastActive
	if s.lastWatched.After(since) {
		since = s.lastWatched
	}
	if wait := s.e.cfg.ReplayAge - time.Since(since); wait > 0 {
		s.quiet = time.AfterFunc(wait, s.releaseIfQuiet)
		s.mu.Unlock()
		return
	}
	s.events.release()
	settle := len(s.unsettled) > 0
	s.mu.Unlock()
	if t := s.adapter.Transcripts(); settle && t != nil {
		ctx, cancel := context.WithTimeout(s.e.ctx, 10*time.Second)
		defer cancel()
		_, _ = s.view(ctx, t, s.dir, 0) // drops what the transcript holds
	}
}
