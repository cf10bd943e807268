package sessions

// A session's process: started on demand (making room under
// --max-processes), stopped, reaped when idle, and its exit.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Stop interrupts a session's turn and ends its process group.
func (e *Engine) Stop(ctx context.Context, id, agentType string) (rpc.SessionStopResult, error) {
	s, err := e.session(id)
	if err != nil {
		return rpc.SessionStopResult{}, err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionStop, agentType, s); err != nil {
		return rpc.SessionStopResult{}, err
	}
	s.stop(ctx, "stopped")
	return rpc.SessionStopResult{Success: true, Status: "stopped", SessionID: s.id, AgentType: s.agentType}, nil
}

// ensureProcess starts (or resumes) the session's process if none runs.
// Callers hold opMu. method names the request, for errors.
func (s *session) ensureProcess(ctx context.Context, method string) error {
	s.mu.Lock()
	if s.gone {
		// A start that failed, or a delete, forgot it while this waited
		// for opMu: a process now would be one the engine cannot see.
		s.mu.Unlock()
		return rpc.SessionNotFound(s.id)
	}
	if s.rt != nil {
		s.mu.Unlock()
		return nil
	}
	if _, err := s.e.ws.Get(s.workspaceID); err != nil {
		// The workspace was removed: nothing new runs in its directory.
		s.mu.Unlock()
		return err
	}
	if fi, err := os.Stat(s.dir); err != nil || !fi.IsDir() {
		// Deleted behind cdevd's back: say so, rather than let the CLI's
		// start fail with a message about fork/exec.
		s.mu.Unlock()
		return rpc.InvalidPath(s.dir, "the session's directory no longer exists")
	}
	resume := s.hadTurn
	if !resume && s.id != "" && s.st != rpc.StatusStarting && !s.adapter.Info().ClientIDs {
		// Its process ended before the first turn, and the CLI (which
		// chose the id) keeps nothing of such a session: a new process
		// would be a new session under another id.
		s.mu.Unlock()
		s.e.forget(s)
		return rpc.SessionLost(s.id, s.agentType)
	}
	wasDown := s.st == rpc.StatusStopped || s.st == rpc.StatusError
	s.gen++
	gen := s.gen
	s.mu.Unlock()

	if err := s.e.makeRoom(ctx, s); err != nil {
		return err
	}
	req := runtimes.StartRequest{SessionID: s.id, Resume: resume, Dir: s.dir, Model: s.opts.Model,
		PermissionMode: s.opts.PermissionMode, Yolo: s.opts.Yolo, Effort: s.opts.Effort, ReadDirs: s.e.cfg.ReadDirs}
	sink := func(ev runtimes.Event) { s.onEvent(gen, ev) }
	var early *earlyEvents
	if s.id == "" {
		// Events are held until the session has the id the runtime chose.
		early = &earlyEvents{}
		sink = func(ev runtimes.Event) { early.handle(ev, func(ev runtimes.Event) { s.onEvent(gen, ev) }) }
	}
	rt, err := s.adapter.Start(ctx, req, sink)
	if err == nil && early != nil {
		id := rt.ID()
		if idErr := runtimes.ValidSessionID(id); idErr != nil {
			early.release(func(ev runtimes.Event) { s.onEvent(gen, ev) })
			s.closeRuntime(ctx, rt)
			err = fmt.Errorf("the runtime chose an unusable session id: %w", idErr)
		} else {
			s.mu.Lock()
			s.id = id
			s.log = s.log.With(zap.String("session", id))
			s.mu.Unlock()
			early.release(func(ev runtimes.Event) { s.onEvent(gen, ev) })
		}
	}
	s.mu.Lock()
	if err == nil && s.exitedGen == gen {
		// Its events run ahead of Start's return: the process is already gone.
		err = errors.New("the CLI exited as soon as it started")
	}
	if err != nil {
		if s.st == rpc.StatusStarting {
			s.st = rpc.StatusError
		}
		s.mu.Unlock()
		if errors.Is(err, runtimes.ErrNoSession) {
			return rpc.SessionNotFound(s.id)
		}
		s.log.Warn("runtime failed to start", zap.Error(err))
		return rpc.RuntimeFailed(method, s.agentType, err)
	}
	s.rt = rt
	s.st = rpc.StatusRunning
	s.stopping = false
	s.lastActive = time.Now()
	if wasDown {
		s.emitLifecycleLocked(rpc.EventSessionStart, func(h rpc.EventHeader) any {
			return rpc.SessionStartEvent{EventHeader: h, Source: "resumed"}
		})
	}
	s.mu.Unlock()
	return nil
}

// makeRoom enforces MaxProcesses for s's runtime by ending the least
// recently active idle process of that runtime.
func (e *Engine) makeRoom(ctx context.Context, s *session) error {
	e.mu.Lock()
	live := 0
	var victim *session
	var victimActive time.Time
	for _, o := range e.sessions {
		if o == s || o.agentType != s.agentType || o.external {
			continue
		}
		o.mu.Lock()
		if o.rt != nil {
			live++
			if !o.turnOpen && len(o.pending) == 0 && !o.stopping &&
				(victim == nil || o.lastActive.Before(victimActive)) {
				victim, victimActive = o, o.lastActive
			}
		}
		o.mu.Unlock()
	}
	e.mu.Unlock()
	if live < e.cfg.MaxProcesses {
		return nil
	}
	if victim == nil {
		return rpc.SessionBusy(s.id, fmt.Sprintf("%d %s sessions are busy; stop one first", live, s.agentType))
	}
	victim.reap(ctx)
	return nil
}

// earlyEvents holds a new session's events until the runtime has named it;
// from then on they pass straight through, in order.
type earlyEvents struct {
	mu    sync.Mutex
	named bool
	held  []runtimes.Event
}

func (q *earlyEvents) handle(ev runtimes.Event, on func(runtimes.Event)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.named {
		q.held = append(q.held, ev)
		return
	}
	on(ev)
}

// release delivers the held events and lets later ones through.
func (q *earlyEvents) release(on func(runtimes.Event)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.named = true
	for _, ev := range q.held {
		on(ev)
	}
	q.held = nil
}

// closeRuntime ends a process the engine will not keep.
func (s *session) closeRuntime(ctx context.Context, rt runtimes.Session) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.e.cfg.StopTimeout)
	defer cancel()
	if err := rt.Close(ctx); err != nil {
		s.log.Warn("close", zap.Error(err))
	}
}

// discard ends the process of a session that could not be registered
// (the daemon is shutting down, say). Callers hold opMu.
func (s *session) discard(ctx context.Context) {
	s.mu.Lock()
	rt := s.rt
	s.gone, s.stopping = true, true
	s.mu.Unlock()
	if rt != nil {
		s.closeRuntime(ctx, rt)
		<-rt.Done()
	}
}

// restart starts the process of a stopped session again (ensureProcess
// announces it with session_start).
func (s *session) restart(ctx context.Context) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	return s.ensureProcess(ctx, rpc.MethodSessionStart)
}

// stop ends the session's process. The turn in progress, if any, ends with
// session_stopped, its one terminal event.
func (s *session) stop(ctx context.Context, reason string) {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	rt := s.rt
	s.stopIdleLocked()
	if rt == nil {
		s.turnOpen = false
		s.snapshotAfterTurnLocked()
		if s.st != rpc.StatusStopped {
			s.st = rpc.StatusStopped
			s.cancelPromptsLocked()
			s.emitLifecycleLocked(rpc.EventSessionStopped, func(h rpc.EventHeader) any {
				return rpc.SessionEndEvent{EventHeader: h, Reason: reason}
			})
			s.pauseQueueFor(rpc.PauseStopped, "the session was stopped ("+reason+")")
		}
		s.mu.Unlock()
		return
	}
	s.stopping = true
	s.stopReason = reason
	s.st = rpc.StatusStopping
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.e.cfg.StopTimeout)
	defer cancel()
	if err := rt.Close(ctx); err != nil {
		s.log.Warn("stop", zap.Error(err))
	}
	<-rt.Done()
}

// reap ends an idle process to free resources; the session stays and
// resumes on its next send.
func (s *session) reap(ctx context.Context) {
	if !s.opMu.TryLock() {
		return // an operation is under way: the session is not idle
	}
	defer s.opMu.Unlock()
	s.mu.Lock()
	rt := s.rt
	if rt == nil || s.turnOpen || len(s.pending) > 0 {
		s.mu.Unlock()
		return
	}
	s.stopIdleLocked()
	s.reaping = true
	s.mu.Unlock()
	s.log.Debug("reaping idle process")
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.e.cfg.StopTimeout)
	defer cancel()
	_ = rt.Close(ctx)
	<-rt.Done()
}

func (s *session) armIdleLocked() {
	if s.e.cfg.IdleTimeout < 0 || s.rt == nil {
		return
	}
	s.stopIdleLocked()
	s.idle = time.AfterFunc(s.e.cfg.IdleTimeout, func() { s.reap(context.Background()) })
}

func (s *session) stopIdleLocked() {
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
}

func (s *session) exitedLocked(ev runtimes.ProcessExited) {
	s.rt = nil
	s.exitedGen = s.gen
	reaped := s.reaping
	s.reaping = false
	s.stopIdleLocked()
	s.cancelPromptsLocked()
	code := ev.ExitCode
	switch {
	case s.stopping:
		s.stopping, s.turnOpen = false, false
		s.snapshotAfterTurnLocked() // a stopped turn may have changed files too
		s.st = rpc.StatusStopped
		s.setActivityLocked(rpc.ActivityIdle)
		reason := s.stopReason
		s.emitLifecycleLocked(rpc.EventSessionStopped, func(h rpc.EventHeader) any {
			return rpc.SessionEndEvent{EventHeader: h, Reason: reason, ExitCode: &code}
		})
		s.pauseQueueFor(rpc.PauseStopped, "the session was stopped ("+reason+")")
	case s.turnOpen:
		s.turnOpen = false
		s.snapshotAfterTurnLocked()
		s.st = rpc.StatusError
		s.emitLocked(rpc.EventError, func(h rpc.EventHeader) any {
			return rpc.ErrorEvent{EventHeader: h, Code: runtimes.CodeCLIExited,
				Message: fmt.Sprintf("%s exited during the turn (exit code %d): %s", s.agentType, code, ev.Reason)}
		})
		s.setActivityLocked(rpc.ActivityIdle)
		s.emitLifecycleLocked(rpc.EventSessionEnd, func(h rpc.EventHeader) any {
			return rpc.SessionEndEvent{EventHeader: h, Reason: "exited", ExitCode: &code}
		})
		s.pauseQueueFor(rpc.PauseFailed, fmt.Sprintf("%s exited during the turn (exit code %d)", s.agentType, code))
	case reaped:
		// Ended while idle to free resources: from the client's point of
		// view the session still runs, and it resumes on its next send.
	default:
		s.st = rpc.StatusStopped // ended by itself while idle
		if code != 0 {
			s.st = rpc.StatusError
		}
		s.emitLifecycleLocked(rpc.EventSessionEnd, func(h rpc.EventHeader) any {
			return rpc.SessionEndEvent{EventHeader: h, Reason: "exited", ExitCode: &code}
		})
	}
}
