package sessions

// The follow-up queue: a prompt sent while a turn runs waits in its
// session's queue, and the queue drains one prompt per turn, in order, as
// turns end. A turn that was interrupted or failed, a stop, and a daemon
// restart pause it: nothing more runs until session/queue/resume or the
// next session/send, which runs its own prompt at once and lets the queue
// drain after it. Every change is a queue_changed event (the whole queue)
// and is written to $CDEVD_HOME/queues/<session>.json before the caller
// hears of it.

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// queueOf is session id's queue; with create, one is made if it has none.
func (e *Engine) queueOf(id string, create func() *queue) *queue {
	e.qmu.Lock()
	defer e.qmu.Unlock()
	q := e.queues[id]
	if q == nil && create != nil && id != "" {
		q = create()
		e.queues[id] = q
	}
	return q
}

// newQueueFor makes s's queue, kept in QueueDir.
func (s *session) newQueueFor() func() *queue {
	return func() *queue {
		q := &queue{sessionID: s.id, workspaceID: s.workspaceID, agentType: s.agentType}
		if s.e.cfg.QueueDir != "" {
			q.path = filepath.Join(s.e.cfg.QueueDir, s.id+".json")
		}
		return q
	}
}

// send starts a turn or, while a turn runs (or queued prompts
// are about to), queues it when queueing is allowed and refuses it with
// SessionBusy when not. pos is the queued prompt's place (from 1), 0 when
// a turn started.
func (s *session) send(ctx context.Context, by string, turn runtimes.Turn, queueing bool) (rpc.QueueItem, int, error) {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	q := s.e.queueOf(s.id, nil)
	busy := s.turnOpen || s.stopping
	if q != nil {
		q.mu.Lock()
		busy = busy || q.pendingLocked() // queued prompts go first
		q.mu.Unlock()
	}
	if busy {
		if !queueing {
			s.mu.Unlock()
			return rpc.QueueItem{}, 0, rpc.SessionBusy(s.id, "a turn is running")
		}
		q = s.e.queueOf(s.id, s.newQueueFor())
		q.mu.Lock()
		it, pos, err := q.addLocked(turn.Prompt, by, queuedAttachments(turn.Attachments))
		q.mu.Unlock()
		if err == nil {
			s.emitQueueLocked(q)
		}
		s.mu.Unlock()
		if err == nil {
			q.save(s.log)
		}
		return it, pos, err
	}
	// A paused queue drains again after this turn: the user, back after a
	// stop or a failure, has the session's attention and sees the queue.
	resumed := false
	if q != nil {
		q.mu.Lock()
		resumed = q.unpauseLocked()
		q.mu.Unlock()
		if resumed {
			s.emitQueueLocked(q)
		}
	}
	s.mu.Unlock()
	if resumed {
		q.save(s.log)
	}
	if err := s.startTurn(ctx, turn); err != nil {
		if resumed {
			s.pauseQueue(rpc.PauseFailed, err.Error())
		}
		return rpc.QueueItem{}, 0, err
	}
	return rpc.QueueItem{}, 0, nil
}

// emitQueueLocked tells watchers the queue's whole new state.
func (s *session) emitQueueLocked(q *queue) {
	snap := q.snapshot()
	s.emitLocked(rpc.EventQueueChanged, func(h rpc.EventHeader) any {
		return rpc.QueueChangedEvent{EventHeader: h, Queue: snap}
	})
}

// afterTurnLocked runs as a turn ends: an interrupted or failed turn
// pauses the queue; otherwise its next prompt starts.
func (s *session) afterTurnLocked(failed string) {
	q := s.e.queueOf(s.id, nil)
	if q == nil {
		return
	}
	switch {
	case s.interrupted:
		s.pauseQueueLocked(q, rpc.PauseInterrupted, "the turn before was interrupted")
	case failed != "":
		s.pauseQueueLocked(q, rpc.PauseFailed, failed)
	default:
		q.mu.Lock()
		next := q.pendingLocked()
		q.mu.Unlock()
		if next && !s.e.closing.Load() {
			s.e.queueWG.Add(1)
			go func() {
				defer s.e.queueWG.Done()
				_ = s.drainNext(s.e.ctx)
			}()
		}
	}
}

// pauseQueueLocked pauses s's queue, if it holds prompts, and saves it
// from a goroutine of its own (the caller holds s.mu).
func (s *session) pauseQueueLocked(q *queue, reason rpc.QueuePause, message string) {
	q.mu.Lock()
	changed := q.pauseLocked(reason, message)
	q.mu.Unlock()
	if !changed {
		return
	}
	s.emitQueueLocked(q)
	s.e.queueWG.Add(1)
	go func() {
		defer s.e.queueWG.Done()
		q.save(s.log)
	}()
}

// pauseQueueFor pauses s's queue, if it has one (the caller holds s.mu).
func (s *session) pauseQueueFor(reason rpc.QueuePause, message string) {
	if q := s.e.queueOf(s.id, nil); q != nil {
		s.pauseQueueLocked(q, reason, message)
	}
}

func (s *session) pauseQueue(reason rpc.QueuePause, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.e.queueOf(s.id, nil); q != nil {
		s.pauseQueueLocked(q, reason, message)
	}
}

// drainNext starts the queue's next prompt if nothing runs. A prompt whose
// turn cannot start goes back first in the queue, which pauses.
func (s *session) drainNext(ctx context.Context) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	if s.e.closing.Load() {
		return nil
	}
	s.mu.Lock()
	q := s.e.queueOf(s.id, nil)
	if q == nil || s.turnOpen || s.stopping || s.gone {
		s.mu.Unlock()
		return nil
	}
	q.mu.Lock()
	it, ok := q.popLocked()
	q.mu.Unlock()
	if !ok {
		s.mu.Unlock()
		return nil
	}
	s.emitQueueLocked(q)
	s.mu.Unlock()
	q.save(s.log)
	turn, err := queuedTurn(it)
	if err == nil {
		err = s.startTurn(ctx, turn)
	}
	if err == nil {
		return nil
	}
	s.mu.Lock()
	q.mu.Lock()
	q.unpopLocked(it)
	q.pauseLocked(rpc.PauseFailed, err.Error())
	q.mu.Unlock()
	s.emitQueueLocked(q)
	s.mu.Unlock()
	q.save(s.log)
	return err
}

// dropQueue forgets a session's queue and its file.
func (e *Engine) dropQueue(id string) {
	e.qmu.Lock()
	q := e.queues[id]
	delete(e.queues, id)
	e.qmu.Unlock()
	if q != nil {
		q.mu.Lock()
		q.items = nil
		q.mu.Unlock()
		q.save(e.log) // an empty queue's file is removed
	}
}

// QueueList is a session's queue: empty for a session with none, live or
// not (a queue outlives its process and the daemon's run).
func (e *Engine) QueueList(p rpc.QueueParams) (rpc.QueueResult, error) {
	if err := validID(p.SessionID); err != nil {
		return rpc.QueueResult{}, err
	}
	res := rpc.QueueResult{SessionID: p.SessionID, Queue: rpc.Queue{Items: []rpc.QueueItem{}}}
	if q := e.queueOf(p.SessionID, nil); q != nil {
		res.Queue = q.snapshot()
	}
	return res, nil
}

// editQueue applies edit to a session's queue, then tells the session's
// watchers (when it runs) and saves it.
func (e *Engine) editQueue(id, queueID string, edit func(q *queue) error) (rpc.QueueResult, error) {
	if err := validID(id); err != nil {
		return rpc.QueueResult{}, err
	}
	q := e.queueOf(id, nil)
	if q == nil {
		if queueID == "" {
			return rpc.QueueResult{SessionID: id, Queue: rpc.Queue{Items: []rpc.QueueItem{}}}, nil
		}
		return rpc.QueueResult{}, rpc.QueueItemGone(id, queueID, false)
	}
	s := e.lookup(id)
	if s != nil && !s.external {
		s.mu.Lock()
	} else {
		s = nil
	}
	q.mu.Lock()
	err := edit(q)
	if err == nil && len(q.items) == 0 {
		q.unpauseLocked() // nothing is held back
	}
	snap := q.snapshotLocked()
	q.mu.Unlock()
	if s != nil {
		if err == nil {
			s.emitQueueLocked(q)
		}
		s.mu.Unlock()
	}
	if err != nil {
		return rpc.QueueResult{}, err
	}
	q.save(e.log)
	return rpc.QueueResult{SessionID: id, Queue: snap}, nil
}

// QueueUpdate replaces a queued prompt's text.
func (e *Engine) QueueUpdate(p rpc.QueueUpdateParams) (rpc.QueueResult, error) {
	if p.Prompt == "" {
		return rpc.QueueResult{}, rpc.InvalidParams("prompt", "required")
	}
	return e.editQueue(p.SessionID, p.QueueID, func(q *queue) error {
		i, err := q.indexLocked(p.QueueID)
		if err == nil {
			q.items[i].Prompt = p.Prompt
		}
		return err
	})
}

// QueueMove moves a queued prompt to position (from 1; past the end is last).
func (e *Engine) QueueMove(p rpc.QueueMoveParams) (rpc.QueueResult, error) {
	if p.Position < 1 {
		return rpc.QueueResult{}, rpc.InvalidParams("position", "from 1 (runs next)")
	}
	return e.editQueue(p.SessionID, p.QueueID, func(q *queue) error {
		i, err := q.indexLocked(p.QueueID)
		if err != nil {
			return err
		}
		it := q.items[i]
		q.items = append(q.items[:i], q.items[i+1:]...)
		to := min(p.Position-1, len(q.items))
		q.items = append(q.items[:to], append([]rpc.QueueItem{it}, q.items[to:]...)...)
		return nil
	})
}

// QueueRemove removes a queued prompt.
func (e *Engine) QueueRemove(p rpc.QueueItemParams) (rpc.QueueResult, error) {
	return e.editQueue(p.SessionID, p.QueueID, func(q *queue) error {
		i, err := q.indexLocked(p.QueueID)
		if err == nil {
			q.items = append(q.items[:i], q.items[i+1:]...)
		}
		return err
	})
}

// QueueClear removes every queued prompt.
func (e *Engine) QueueClear(p rpc.QueueParams) (rpc.QueueResult, error) {
	return e.editQueue(p.SessionID, "", func(q *queue) error {
		q.items = nil
		return nil
	})
}

// QueueResume lets a paused queue drain: its next prompt runs now unless a
// turn runs (then after it), resuming the session's process, or after a
// restart the session itself, first. The caller watches the session, as
// a sender does.
func (e *Engine) QueueResume(ctx context.Context, w Watcher, p rpc.QueueParams) (rpc.QueueResult, error) {
	if err := validID(p.SessionID); err != nil {
		return rpc.QueueResult{}, err
	}
	q := e.queueOf(p.SessionID, nil)
	if q == nil {
		return e.QueueList(p)
	}
	s := e.lookup(p.SessionID)
	if s == nil || s.external {
		q.mu.Lock()
		st := StartOptions{WorkspaceID: q.workspaceID, AgentType: q.agentType, SessionID: q.sessionID, Resume: true}
		q.mu.Unlock()
		if _, err := e.Start(ctx, w, st); err != nil {
			return rpc.QueueResult{}, err
		}
		if s = e.lookup(p.SessionID); s == nil {
			return rpc.QueueResult{}, rpc.SessionNotFound(p.SessionID)
		}
	}
	s.watch(w, nil)
	s.mu.Lock()
	q.mu.Lock()
	changed := q.unpauseLocked()
	q.mu.Unlock()
	if changed {
		s.emitQueueLocked(q)
	}
	s.mu.Unlock()
	if changed {
		q.save(s.log)
	}
	if err := s.drainNext(ctx); err != nil {
		var re *rpc.Error
		if !errors.As(err, &re) {
			err = rpc.RuntimeFailed(rpc.MethodQueueResume, s.agentType, err)
		}
		return rpc.QueueResult{}, err
	}
	return rpc.QueueResult{SessionID: p.SessionID, Queue: q.snapshot()}, nil
}

// Steer sends prompt into the running turn, where the runtime can take it.
func (e *Engine) Steer(ctx context.Context, p rpc.SteerParams) (rpc.SteerResult, error) {
	if p.Prompt == "" {
		return rpc.SteerResult{}, rpc.InvalidParams("prompt", "required")
	}
	s, err := e.session(p.SessionID)
	if err != nil {
		return rpc.SteerResult{}, err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionSteer, p.AgentType, s); err != nil {
		return rpc.SteerResult{}, err
	}
	if !s.adapter.Info().Features.Steering {
		return rpc.SteerResult{}, rpc.Errorf(rpc.CodeInvalidParams, map[string]any{"field": "session_id",
			"reason": "the runtime cannot take input into a running turn", "agent_type": s.agentType},
			"%s cannot take input into a running turn: session/send queues the prompt for the next turn", s.agentType)
	}
	s.mu.Lock()
	rt, open := s.rt, s.turnOpen
	s.mu.Unlock()
	st, ok := rt.(runtimes.Steerer)
	if !open || !ok {
		return rpc.SteerResult{}, rpc.NoTurn(s.id)
	}
	if err := st.Steer(ctx, runtimes.Turn{Prompt: p.Prompt}); err != nil {
		if errors.Is(err, runtimes.ErrNoTurn) {
			return rpc.SteerResult{}, rpc.NoTurn(s.id)
		}
		return rpc.SteerResult{}, rpc.RuntimeFailed(rpc.MethodSessionSteer, s.agentType, err)
	}
	return rpc.SteerResult{Status: "steered", SessionID: s.id}, nil
}
