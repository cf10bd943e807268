package sessions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

// session is one session id and, while it runs, its one process.
//
// Locking: opMu serializes operations that change the process (start, send,
// stop, reap) and may be held across slow adapter calls; mu guards state
// and the event log and is never held across a call into the adapter,
// because adapters deliver events synchronously from their own goroutines.
type session struct {
	e           *Engine
	id          string
	workspaceID string
	dir         string
	agentType   string
	adapter     runtimes.Adapter
	opts        StartOptions
	external    bool      // followed through its transcript, not run by cdevd
	tail        io.Closer // external sessions only
	log         *zap.Logger

	opMu sync.Mutex

	mu         sync.Mutex
	st         rpc.SessionStatus
	activity   rpc.Activity
	startedAt  time.Time
	lastActive time.Time
	rt         runtimes.Session // nil while no process runs
	gen        int              // process generation; events of older ones are ignored
	hadTurn    bool             // the runtime has stored history to resume
	stopping   bool             // a user stop is under way
	stopReason string           // why, for its session_stopped
	reaping    bool             // an idle process is being ended; its exit is not news
	exitedGen  int              // generation of the last process that exited
	gone       bool             // forgotten by the engine: it must never start a process again
	turnOpen   bool
	pending    []*prompt
	unsettled  []rpc.Message // emitted, maybe not in the transcript yet (overlay.go)
	events     *eventLog
	seq        int64
	watchers   map[Watcher]struct{}
	catchingUp map[Watcher]*replay // replaying; live once caught up
	idle       *time.Timer
	// Quiet sessions (no process, nobody watching) give back their replay
	// buffer after ReplayAge (quiet.go).
	lastWatched time.Time
	quiet       *time.Timer
}

type prompt struct {
	id    string
	kind  rpc.RespondType
	event *Event // the pty_permission or question event, re-sent to new watchers
	tool  string
	summ  string
}

func (e *Engine) newSession(id string, ws workspaces.Workspace, a runtimes.Adapter, o StartOptions) *session {
	now := time.Now()
	return &session{e: e, id: id, workspaceID: ws.ID, dir: ws.Path, agentType: a.Info().ID,
		adapter: a, opts: o, hadTurn: o.Resume, st: rpc.StatusStarting, activity: rpc.ActivityIdle,
		startedAt: now, lastActive: now,
		events:   newEventLog(e.cfg.ReplayEvents, e.cfg.ReplayMax, e.cfg.ReplayBytes, e.cfg.ReplayAge),
		watchers: map[Watcher]struct{}{},
		log:      e.log.With(zap.String("session", id), zap.String("runtime", a.Info().ID))}
}

func (s *session) status() rpc.SessionStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

func (s *session) isRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rt != nil
}

func (s *session) lastActiveTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastActive
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
		PermissionMode: s.opts.PermissionMode, Yolo: s.opts.Yolo}
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

// send starts a turn, resuming the process first if it has gone.
func (s *session) send(ctx context.Context, text string) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	busy := s.turnOpen || s.stopping
	s.mu.Unlock()
	if busy {
		return rpc.SessionBusy(s.id, "a turn is running")
	}
	if err := s.ensureProcess(ctx, rpc.MethodSessionSend); err != nil {
		return err
	}
	s.mu.Lock()
	rt := s.rt
	if rt == nil {
		// The process ended between its start and this turn.
		s.mu.Unlock()
		return rpc.RuntimeFailed(rpc.MethodSessionSend, s.agentType, runtimes.ErrExited)
	}
	s.turnOpen = true
	s.hadTurn = true
	s.st = rpc.StatusRunning
	s.lastActive = time.Now()
	s.stopIdleLocked()
	if !s.adapter.Info().EchoesPrompts {
		// Other watchers should see what was asked, not only the answer.
		msg := rpc.Message{ID: uuid.NewString(), SessionID: s.id, Type: rpc.MessageUser,
			Timestamp: rpc.FormatTime(time.Now()),
			Message:   rpc.MessageBody{Role: "user", Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: text}}}}
		msg.UUID = msg.ID
		s.emitMessageLocked(msg)
	}
	s.setActivityLocked(rpc.ActivityThinking)
	s.mu.Unlock()

	if err := rt.Send(ctx, runtimes.Turn{Prompt: text}); err != nil {
		s.mu.Lock()
		open := s.turnOpen
		s.turnOpen = false
		if open {
			code := runtimes.CodeRuntimeError
			if errors.Is(err, runtimes.ErrExited) {
				code = runtimes.CodeCLIExited
			}
			s.emitLocked(rpc.EventError, func(h rpc.EventHeader) any {
				return rpc.ErrorEvent{EventHeader: h, Code: code, Message: err.Error()}
			})
			s.setActivityLocked(rpc.ActivityIdle)
		}
		s.mu.Unlock()
		if errors.Is(err, runtimes.ErrBusy) {
			return rpc.SessionBusy(s.id, "a turn is running")
		}
		return rpc.RuntimeFailed(rpc.MethodSessionSend, s.agentType, err)
	}
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
		if s.st != rpc.StatusStopped {
			s.st = rpc.StatusStopped
			s.cancelPromptsLocked()
			s.emitLifecycleLocked(rpc.EventSessionStopped, func(h rpc.EventHeader) any {
				return rpc.SessionEndEvent{EventHeader: h, Reason: reason}
			})
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

// onEvent turns an adapter event into session events.
func (s *session) onEvent(gen int, ev runtimes.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	s.lastActive = time.Now()
	switch ev := ev.(type) {
	case runtimes.MessageDelta:
		s.emitLocked(rpc.EventMessageDelta, func(h rpc.EventHeader) any {
			return rpc.MessageDeltaEvent{EventHeader: h, MessageID: ev.MessageID, Phase: ev.Phase, Text: ev.Text}
		})
	case runtimes.MessageCompleted:
		ev.Message.SessionID = s.id
		s.emitMessageLocked(ev.Message)
	case runtimes.ActivityChanged:
		s.setActivityLocked(ev.Activity)
	case runtimes.PromptRequested:
		s.addPromptLocked(ev)
	case runtimes.PromptCancelled:
		s.resolveLocked(ev.RequestID, "server", "cancelled")
	case runtimes.TurnCompleted:
		if !s.endTurnLocked() {
			return
		}
		s.emitLocked(rpc.EventTurnCompleted, func(h rpc.EventHeader) any {
			return rpc.TurnCompletedEvent{EventHeader: h, Usage: ev.Usage, CostUSD: ev.CostUSD,
				StopReason: ev.StopReason, DurationMS: ev.DurationMS}
		})
	case runtimes.TurnFailed:
		if !s.endTurnLocked() {
			s.log.Info("runtime error outside a turn", zap.String("code", ev.Code), zap.String("message", ev.Message))
			return
		}
		s.emitLocked(rpc.EventError, func(h rpc.EventHeader) any {
			return rpc.ErrorEvent{EventHeader: h, Code: ev.Code, Message: ev.Message}
		})
	case runtimes.ProcessExited:
		s.exitedLocked(ev)
		s.armQuietLocked()
	}
}

// endTurnLocked closes the open turn; false if none was open (so that a
// second terminal event for one turn is never sent).
func (s *session) endTurnLocked() bool {
	if !s.turnOpen || s.stopping {
		return false
	}
	s.turnOpen = false
	s.setActivityLocked(rpc.ActivityIdle)
	s.armIdleLocked()
	return true
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
		s.st = rpc.StatusStopped
		s.setActivityLocked(rpc.ActivityIdle)
		reason := s.stopReason
		s.emitLifecycleLocked(rpc.EventSessionStopped, func(h rpc.EventHeader) any {
			return rpc.SessionEndEvent{EventHeader: h, Reason: reason, ExitCode: &code}
		})
	case s.turnOpen:
		s.turnOpen = false
		s.st = rpc.StatusError
		s.emitLocked(rpc.EventError, func(h rpc.EventHeader) any {
			return rpc.ErrorEvent{EventHeader: h, Code: runtimes.CodeCLIExited,
				Message: fmt.Sprintf("%s exited during the turn (exit code %d): %s", s.agentType, code, ev.Reason)}
		})
		s.setActivityLocked(rpc.ActivityIdle)
		s.emitLifecycleLocked(rpc.EventSessionEnd, func(h rpc.EventHeader) any {
			return rpc.SessionEndEvent{EventHeader: h, Reason: "exited", ExitCode: &code}
		})
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

func (s *session) setActivityLocked(a rpc.Activity) {
	if s.activity == a {
		return
	}
	s.activity = a
	state := rpc.PtyState(a)
	s.emitLocked(rpc.EventState, func(h rpc.EventHeader) any {
		return rpc.StateEvent{EventHeader: h, State: state,
			WaitingForInput: a == rpc.ActivityPermission || a == rpc.ActivityQuestion}
	})
}

func (s *session) emitMessageLocked(m rpc.Message) {
	if m.Message.Content == nil {
		m.Message.Content = []rpc.ContentBlock{} // required on the wire: never null
	}
	s.rememberLocked(m)
	s.emitAtLocked(rpc.EventMessage, m.Timestamp, func(h rpc.EventHeader) any {
		return rpc.MessageEvent{EventHeader: h, ID: m.ID, Type: m.Type, UUID: m.UUID, Message: m.Message}
	})
}

func (s *session) addPromptLocked(ev runtimes.PromptRequested) {
	p := &prompt{id: ev.RequestID}
	switch {
	case ev.Permission != nil:
		pp := ev.Permission
		if pp.Options == nil {
			pp.Options = []rpc.Option{}
		}
		p.kind, p.tool, p.summ = rpc.RespondPermission, pp.ToolName, pp.Target
		p.event = s.emitLocked(rpc.EventPermission, func(h rpc.EventHeader) any {
			return rpc.PermissionEvent{EventHeader: h, RequestID: ev.RequestID, Type: pp.Kind,
				ToolName: pp.ToolName, Target: pp.Target, Description: pp.Description,
				Preview: pp.Preview, Options: pp.Options}
		})
	case ev.Question != nil:
		q := ev.Question
		if q.Questions == nil {
			q.Questions = []rpc.Question{}
		}
		p.kind = rpc.RespondQuestion
		if len(q.Questions) > 0 {
			p.summ = q.Questions[0].Question
		}
		p.event = s.emitLocked(rpc.EventQuestion, func(h rpc.EventHeader) any {
			return rpc.QuestionEvent{EventHeader: h, RequestID: ev.RequestID, Questions: q.Questions}
		})
	default:
		return
	}
	s.pending = append(s.pending, p)
	s.stopIdleLocked()
	// The state says so at once: a session/state between the prompt and
	// the runtime's activity change must not show a waiting prompt while
	// "thinking".
	if p.kind == rpc.RespondQuestion {
		s.setActivityLocked(rpc.ActivityQuestion)
	} else {
		s.setActivityLocked(rpc.ActivityPermission)
	}
}

// resolveLocked removes a pending prompt and tells every watcher.
func (s *session) resolveLocked(requestID, by, decision string) bool {
	for i, p := range s.pending {
		if p.id == requestID {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			s.emitLocked(rpc.EventPermissionResolved, func(h rpc.EventHeader) any {
				return rpc.PermissionResolvedEvent{EventHeader: h, RequestID: requestID, ResolvedBy: by, Decision: decision}
			})
			return true
		}
	}
	return false
}

func (s *session) cancelPromptsLocked() {
	for len(s.pending) > 0 {
		s.resolveLocked(s.pending[0].id, "server", "cancelled")
	}
}

// respond answers a pending prompt. With asInput, response is what
// session/input got: a key name, an option key or text.
func (s *session) respond(ctx context.Context, clientID string, kind rpc.RespondType, requestID, response string, asInput bool) error {
	s.mu.Lock()
	var p *prompt
	for _, c := range s.pending {
		if (requestID == "" || c.id == requestID) && (kind == "" || c.kind == kind) {
			p = c
			break
		}
	}
	rt := s.rt
	if p == nil || rt == nil {
		s.mu.Unlock()
		return rpc.RequestNotFound(s.id, requestID)
	}
	// Claim the prompt so that a second client answering at the same time
	// gets RequestNotFound instead of answering twice.
	s.removePromptLocked(p)
	s.mu.Unlock()

	answer, decision, err := interpret(p.kind, response, asInput)
	if err == nil {
		err = rt.Respond(ctx, p.id, answer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case errors.Is(err, runtimes.ErrNoRequest) || errors.Is(err, runtimes.ErrExited):
		// The runtime stopped waiting while the answer was on its way
		// (its cancellation found the prompt claimed): withdraw it now.
		s.emitLocked(rpc.EventPermissionResolved, func(h rpc.EventHeader) any {
			return rpc.PermissionResolvedEvent{EventHeader: h, RequestID: p.id, ResolvedBy: "server", Decision: "cancelled"}
		})
		return rpc.RequestNotFound(s.id, p.id)
	case err != nil:
		// A bad answer (or one the runtime refused): the prompt still waits.
		s.pending = append([]*prompt{p}, s.pending...)
		var re *rpc.Error
		if errors.As(err, &re) {
			return err
		}
		return rpc.RuntimeFailed(rpc.MethodSessionRespond, s.agentType, err)
	}
	s.emitLocked(rpc.EventPermissionResolved, func(h rpc.EventHeader) any {
		return rpc.PermissionResolvedEvent{EventHeader: h, RequestID: p.id, ResolvedBy: clientID, Decision: decision}
	})
	return nil
}

// interruptible reports a running turn with no prompt waiting.
func (s *session) interruptible() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turnOpen && len(s.pending) == 0 && s.rt != nil
}

func (s *session) interrupt(ctx context.Context) error {
	s.mu.Lock()
	rt := s.rt
	s.mu.Unlock()
	if rt == nil {
		return rpc.RequestNotFound(s.id, "")
	}
	if err := rt.Interrupt(ctx); err != nil {
		return rpc.RuntimeFailed(rpc.MethodSessionInput, s.agentType, err)
	}
	return nil
}

func (s *session) removePromptLocked(p *prompt) {
	for i, c := range s.pending {
		if c == p {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			return
		}
	}
}

// interpret maps what a client sent to an adapter Answer and the decision
// reported in pty_permission_resolved.
func interpret(kind rpc.RespondType, response string, asInput bool) (runtimes.Answer, string, error) {
	r := strings.TrimSpace(response)
	if kind == rpc.RespondQuestion {
		if r == "" || (asInput && strings.EqualFold(r, "escape")) {
			return runtimes.Answer{}, "", rpc.InvalidParams("response", "an answer is required")
		}
		return runtimes.Answer{Text: r}, "answered", nil
	}
	switch strings.ToLower(r) {
	case "yes", "y", "allow", "approve", "1", "enter":
		return runtimes.Answer{Decision: runtimes.Allow}, string(runtimes.Allow), nil
	case "always", "allow_always", "2":
		return runtimes.Answer{Decision: runtimes.AllowAlways}, string(runtimes.AllowAlways), nil
	case "no", "n", "deny", "reject", "3", "escape", "esc":
		return runtimes.Answer{Decision: runtimes.Deny}, string(runtimes.Deny), nil
	}
	return runtimes.Answer{}, "", rpc.InvalidParams("response", fmt.Sprintf("%q is not yes, always or no", response))
}

func (s *session) state() rpc.SessionStateResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := rpc.SessionStateResult{SessionID: s.id, WorkspaceID: s.workspaceID, AgentType: s.agentType,
		Status: s.st, Activity: s.activity, StartedAt: rpc.FormatTime(s.startedAt),
		LastActive: rpc.FormatTime(s.lastActive), IsRunning: s.rt != nil,
		WaitingForInput: len(s.pending) > 0, Epoch: s.e.cfg.Epoch, LastSeq: s.seq}
	for _, p := range s.pending {
		res.Pending = append(res.Pending, rpc.PendingRequest{RequestID: p.id, Type: p.kind, ToolName: p.tool, Summary: p.summ})
	}
	return res
}

// emitLocked numbers, records and fans out one event.
func (s *session) emitLocked(typ string, build func(rpc.EventHeader) any) *Event {
	return s.emitAtLocked(typ, "", build)
}

func (s *session) emitAtLocked(typ, at string, build func(rpc.EventHeader) any) *Event {
	now := time.Now().UTC()
	if at == "" {
		at = rpc.FormatTime(now)
	} else {
		at = rpc.NormalizeTime(at) // a transcript's time, in the wire's one format
	}
	s.seq++
	h := rpc.EventHeader{SessionID: s.id, WorkspaceID: s.workspaceID, AgentType: s.agentType,
		Timestamp: at, Seq: s.seq, Epoch: s.e.cfg.Epoch}
	method := rpc.EventPrefix + typ
	ev := &Event{Seq: s.seq, Type: typ, SessionID: s.id, WorkspaceID: s.workspaceID, At: now,
		Frame: notification(method, build(h)), method: method}
	s.events.add(ev)
	for w := range s.watchers {
		w.Deliver(ev)
	}
	return ev
}

// emitLifecycleLocked emits an event that workspace subscribers get too.
func (s *session) emitLifecycleLocked(typ string, build func(rpc.EventHeader) any) {
	ev := s.emitLocked(typ, build)
	watching := make(map[Watcher]struct{}, len(s.watchers))
	for w := range s.watchers {
		watching[w] = struct{}{}
	}
	s.e.publishWorkspace(ev, watching) // takes only subMu, a leaf lock

}

func (s *session) emitLifecycle(typ string, build func(rpc.EventHeader) any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitLifecycleLocked(typ, build)
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
