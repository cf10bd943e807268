package sessions

// Watchers: workspace/session/watch with its replay since a seq, unwatch,
// and a client's departure.

import (
	"context"
	"math"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
)

// gapSeq is beyond any seq: watching since it always reports a gap.
var gapSeq int64 = math.MaxInt64

// Watch attaches w to a session's events. With sinceSeq, what w missed
// is replayed by the returned function, which the caller runs once the
// reply is on its way (so the reply comes first); it returns at once and
// the replay goes on at the client's pace. A session cdevd does not run is
// followed through its transcript.
func (e *Engine) Watch(ctx context.Context, w Watcher, workspaceID, id, agentType string, sinceSeq *int64, epoch string) (rpc.WatchResult, func(), error) {
	ws, err := e.ws.Get(workspaceID)
	if err != nil {
		return rpc.WatchResult{}, nil, err
	}
	if err := validID(id); err != nil {
		return rpc.WatchResult{}, nil, err
	}
	s := e.lookup(id)
	if s == nil {
		if s, err = e.tailExternal(ctx, ws, id, agentType); err != nil {
			return rpc.WatchResult{}, nil, err
		}
	}
	if s.workspaceID != ws.ID {
		return rpc.WatchResult{}, nil, rpc.SessionNotFound(id)
	}
	if sinceSeq != nil && epoch != "" && epoch != e.cfg.Epoch {
		// Seqs of another run of the daemon say nothing about this one.
		sinceSeq = &gapSeq
	}
	r := s.watch(w, sinceSeq)
	return rpc.WatchResult{Status: "watching", Watching: true, WorkspaceID: ws.ID, SessionID: id,
		Epoch: e.cfg.Epoch, LastSeq: r.last, Replayed: r.replayed, Gap: r.gap}, r.start, nil
}

// Unwatch detaches w from one session, or from all when id is empty. It
// returns the workspace of the session left, if any.
func (e *Engine) Unwatch(w Watcher, id string) string {
	e.mu.Lock()
	var list []*session
	for _, s := range e.sessions {
		if id == "" || s.id == id {
			list = append(list, s)
		}
	}
	e.mu.Unlock()
	wsID := ""
	for _, s := range list {
		if s.unwatch(w) {
			wsID = s.workspaceID
		}
	}
	return wsID
}

// Detach removes a departing client everywhere.
func (e *Engine) Detach(w Watcher) {
	e.Unwatch(w, "")
	e.subMu.Lock()
	var ids []string
	for id, subs := range e.subs {
		if _, ok := subs[w]; ok {
			ids = append(ids, id)
		}
	}
	e.subMu.Unlock()
	for _, id := range ids {
		e.unsubscribe(w, id)
	}
}

// watching is what watch did, and the replay still to run.
type watching struct {
	replayed int
	gap      bool
	last     int64
	start    func() // runs the replay; nil when there is none
}

// watch attaches w. Without sinceSeq, or when the buffer no longer reaches
// back (a gap), w goes live at once and gets the pending prompts. Otherwise
// w catches up first: start replays from the log without holding mu, and
// w joins the live watchers only when, under mu, nothing is left to
// replay. Every emit holds mu, so nothing is missed or sent twice.
func (s *session) watch(w Watcher, sinceSeq *int64) watching {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, live := s.watchers[w]
	_, catching := s.catchingUp[w]
	if (live || catching) && sinceSeq == nil {
		return watching{last: s.seq}
	}
	delete(s.watchers, w)
	s.stopReplayLocked(w) // a newer watch supersedes a replay under way
	res := watching{last: s.seq}
	seen := s.seq // without since_seq the client starts from now
	var missed []*Event
	if sinceSeq != nil {
		seen = *sinceSeq
		evs, ok := s.events.since(seen)
		if seen > s.seq || !ok {
			res.gap, seen = true, s.seq // a seq from another epoch, or too old
		} else {
			missed = evs
		}
	}
	if len(missed) == 0 {
		s.goLiveLocked(w, seen, res.gap)
		return res
	}
	res.replayed = len(missed)
	if s.catchingUp == nil {
		s.catchingUp = map[Watcher]*replay{}
	}
	r := &replay{}
	r.ctx, r.cancel = context.WithCancel(s.e.ctx)
	s.catchingUp[w] = r
	res.start = func() {
		if !s.e.track() {
			return // shutting down: nothing more is sent
		}
		go s.catchUp(w, r, seen, missed)
	}
	return res
}

// replay is one client's catch-up under way; cancelling it (a newer watch,
// unwatch, takeover) stops it before its next event.
type replay struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// stopReplayLocked ends w's replay, if one is under way.
func (s *session) stopReplayLocked(w Watcher) {
	if r, ok := s.catchingUp[w]; ok {
		r.cancel()
		delete(s.catchingUp, w)
	}
}

// goLiveLocked adds w to the live watchers and re-sends the prompts still
// pending that it has not seen.
func (s *session) goLiveLocked(w Watcher, seen int64, all bool) {
	for _, p := range s.pending {
		if all || p.event.Seq <= seen {
			w.Deliver(p.event)
		}
	}
	s.watchers[w] = struct{}{}
}

func (s *session) catchUp(w Watcher, r *replay, since int64, evs []*Event) {
	defer s.e.wg.Done()
	defer r.cancel()
	seen := since
	current := func() bool { return s.catchingUp[w] == r } // under mu
	for {
		for _, ev := range evs {
			if r.ctx.Err() != nil {
				return // superseded, unwatched, or shutting down
			}
			if err := w.DeliverWait(r.ctx, ev); err != nil {
				s.mu.Lock()
				if current() {
					delete(s.catchingUp, w)
				}
				s.mu.Unlock()
				return
			}
		}
		if len(evs) > 0 {
			seen = evs[len(evs)-1].Seq
		}
		s.mu.Lock()
		if !current() {
			s.mu.Unlock() // unwatched or superseded meanwhile
			return
		}
		more, ok := s.events.since(seen)
		switch {
		case !ok:
			// The session outran the client for longer than the buffer
			// lasts: what it missed is gone. It reconnects and is told.
			delete(s.catchingUp, w)
			s.mu.Unlock()
			w.Cut("fell behind the replay buffer; watch again for gap")
			return
		case len(more) == 0:
			delete(s.catchingUp, w)
			s.goLiveLocked(w, since, false)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		evs = more
	}
}

// unwatch detaches w; the last watcher of an external session ends its tail.
func (s *session) unwatch(w Watcher) bool {
	s.mu.Lock()
	_, ok := s.watchers[w]
	_, catching := s.catchingUp[w]
	delete(s.watchers, w)
	s.stopReplayLocked(w)
	ok = ok || catching
	last := ok && s.external && len(s.watchers) == 0 && len(s.catchingUp) == 0
	if ok {
		s.lastWatched = time.Now()
		s.armQuietLocked()
	}
	s.mu.Unlock()
	if last {
		s.e.forget(s)
		s.closeTail()
	}
	return ok
}

// isWatching reports whether w watches s, live or catching up.
func (s *session) isWatching(w Watcher) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, live := s.watchers[w]
	_, catching := s.catchingUp[w]
	return live || catching
}

// retire ends an external session that cdevd now runs itself: its tail
// stops and its watchers are cut, to come back to the run; except keep,
// the client taking it over, which the new run attaches itself.
func (s *session) retire(keep Watcher) {
	s.closeTail()
	s.mu.Lock()
	var ws []Watcher
	for w := range s.watchers {
		ws = append(ws, w)
	}
	for w, r := range s.catchingUp {
		r.cancel()
		ws = append(ws, w)
	}
	clear(s.watchers)
	clear(s.catchingUp)
	s.mu.Unlock()
	for _, w := range ws {
		if w != keep {
			w.Cut("session is now run by cdevd; watch it again")
		}
	}
}

func (s *session) closeTail() {
	s.mu.Lock()
	t := s.tail
	s.tail = nil
	s.mu.Unlock()
	if t != nil {
		if err := t.Close(); err != nil {
			s.log.Debug("close tail", zap.Error(err))
		}
	}
}
