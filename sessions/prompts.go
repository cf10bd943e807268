package sessions

// Turns and prompts: session/send, the permission requests and questions
// a turn raises, their answers (session/respond, session/input) and
// interrupts.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// SendOptions are session/send's params after validation.
type SendOptions struct {
	Prompt      string
	SessionID   string
	WorkspaceID string
	Mode        rpc.SendMode
	AgentType   string
	Options     StartOptions // for a session created by this send
	// NoQueue refuses the prompt with SessionBusy while a turn runs,
	// instead of queueing it (queue.go).
	NoQueue bool
	// Configuration changes the session's model and effort from this turn
	// on (configure.go); a session this send creates starts with them.
	Configuration Configuration
	// Attachments go with the turn, of kinds the runtime accepts (checked
	// here, before a session starts for the turn).
	Attachments []runtimes.Attachment
}

// Send sends a user turn, creating or resuming the session when needed.
func (e *Engine) Send(ctx context.Context, w Watcher, o SendOptions) (rpc.SessionSendResult, error) {
	if o.Prompt == "" {
		return rpc.SessionSendResult{}, rpc.InvalidParams("prompt", "required")
	}
	if o.AgentType != "" {
		// Routed here, so that errors name this method even when the send
		// goes on to start a session.
		if _, err := e.reg.Route(ctx, rpc.MethodSessionSend, o.AgentType); err != nil {
			return rpc.SessionSendResult{}, err
		}
	}
	o.Options.AttachmentKinds = kindsOf(o.Attachments)
	auto := false
	s := (*session)(nil)
	switch {
	case o.SessionID != "":
		s = e.lookup(o.SessionID)
		if s == nil || s.external {
			// A historical session: resume it in its workspace, the one
			// given or the one it was activated in.
			if o.WorkspaceID == "" {
				o.WorkspaceID = e.activatedIn(o.SessionID)
			}
			if o.WorkspaceID == "" {
				return rpc.SessionSendResult{}, rpc.SessionNotFound(o.SessionID)
			}
			st := o.Options
			st.WorkspaceID, st.AgentType, st.SessionID, st.Resume = o.WorkspaceID, o.AgentType, o.SessionID, true
			if _, err := e.Start(ctx, w, st); err != nil {
				return rpc.SessionSendResult{}, err
			}
			s = e.lookup(o.SessionID)
		}
	case o.WorkspaceID != "":
		if o.Mode == rpc.SendContinue || o.Mode == "" {
			s = e.current(o.WorkspaceID, o.AgentType)
		}
		if s == nil {
			st := o.Options
			st.WorkspaceID, st.AgentType = o.WorkspaceID, o.AgentType
			if o.Mode == rpc.SendContinue || o.Mode == "" {
				if ref, ok := e.activeRef(o.WorkspaceID); ok && (o.AgentType == "" || o.AgentType == ref.agentType) {
					st.SessionID, st.AgentType = ref.sessionID, ref.agentType
				}
			}
			res, err := e.Start(ctx, w, st)
			if err != nil {
				return rpc.SessionSendResult{}, err
			}
			auto = res.Source == "new"
			s = e.lookup(res.SessionID)
		}
	default:
		return rpc.SessionSendResult{}, rpc.InvalidParams("session_id", "session_id or workspace_id is required")
	}
	if s == nil {
		return rpc.SessionSendResult{}, rpc.SessionNotFound(o.SessionID)
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionSend, o.AgentType, s); err != nil {
		return rpc.SessionSendResult{}, err
	}
	if err := checkAttachments(s.adapter.Info(), o.Options.AttachmentKinds); err != nil {
		return rpc.SessionSendResult{}, err
	}
	if err := e.configureForSend(s, o.Configuration); err != nil {
		return rpc.SessionSendResult{}, err
	}
	// The sender watches from before its turn begins, so it sees all of it.
	watched := s.isWatching(w)
	s.watch(w, nil)
	queued, pos, err := s.send(ctx, w.ClientID(), runtimes.Turn{Prompt: o.Prompt, Attachments: o.Attachments}, !o.NoQueue)
	if err != nil {
		if !watched {
			s.unwatch(w)
		}
		return rpc.SessionSendResult{}, err
	}
	res := rpc.SessionSendResult{Status: rpc.SendSent, SessionID: s.id, AgentType: s.agentType,
		WorkspaceID: s.workspaceID, AutoCreated: auto}
	if pos > 0 {
		res.Status, res.QueueID, res.Position = rpc.SendQueued, queued.QueueID, pos
	}
	return res, nil
}

// current is the workspace's most recently active cdevd session.
func (e *Engine) current(workspaceID, agentType string) *session {
	if ref, ok := e.activeRef(workspaceID); ok {
		if s := e.lookup(ref.sessionID); s != nil && !s.external && s.workspaceID == workspaceID &&
			(agentType == "" || s.agentType == agentType) {
			return s
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var best *session
	for _, s := range e.sessions {
		if s.external || s.workspaceID != workspaceID || (agentType != "" && s.agentType != agentType) {
			continue
		}
		if best == nil || s.lastActiveTime().After(best.lastActiveTime()) {
			best = s
		}
	}
	return best
}

// Respond answers a pending prompt.
func (e *Engine) Respond(ctx context.Context, w Watcher, id, agentType string, kind rpc.RespondType, requestID, response string) error {
	s, err := e.session(id)
	if err != nil {
		return err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionRespond, agentType, s); err != nil {
		return err
	}
	return s.respond(ctx, w.ClientID(), kind, requestID, response, false)
}

// Input answers the pending prompt with a key or text.
func (e *Engine) Input(ctx context.Context, w Watcher, id, agentType, input string) error {
	s, err := e.session(id)
	if err != nil {
		return err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionInput, agentType, s); err != nil {
		return err
	}
	if isEscape(input) && s.interruptible() {
		// Escape with nothing to answer does what it does in the CLI's own
		// terminal: it interrupts the running turn. The turn still ends
		// with its one terminal event.
		return s.interrupt(ctx)
	}
	return s.respond(ctx, w.ClientID(), "", "", input, true)
}

func isEscape(input string) bool {
	switch strings.ToLower(strings.TrimSpace(input)) {
	case "escape", "esc", "ctrl+c", "ctrl-c":
		return true
	}
	return false
}

type prompt struct {
	id    string
	kind  rpc.RespondType
	event *Event // the pty_permission or question event, re-sent to new watchers
	tool  string
	summ  string
}

// startTurn starts a turn, resuming the process first if it has gone.
// Callers hold opMu (send and the queue's drain, queue.go).
func (s *session) startTurn(ctx context.Context, turn runtimes.Turn) error {
	text := turn.Prompt
	s.mu.Lock()
	busy := s.turnOpen || s.stopping
	s.mu.Unlock()
	if busy {
		return rpc.SessionBusy(s.id, "a turn is running")
	}
	if err := s.ensureProcess(ctx, rpc.MethodSessionSend); err != nil {
		return err
	}
	repo, base := s.snapshotBeforeTurn(ctx)
	s.mu.Lock()
	rt := s.rt
	if rt == nil {
		// The process ended between its start and this turn.
		s.mu.Unlock()
		return rpc.RuntimeFailed(rpc.MethodSessionSend, s.agentType, runtimes.ErrExited)
	}
	s.turnOpen, s.interrupted = true, false
	s.turnRepo, s.turnBase = repo, base
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

	t := s.turnConfig(text)
	t.Attachments = turn.Attachments
	if err := rt.Send(ctx, t); err != nil {
		var refused *rpc.Error
		if errors.As(err, &refused) && refused.Code == rpc.CodeInvalidParams {
			// The runtime refused the turn as asked (an attachment its
			// CLI said it cannot take) before it began: the caller's
			// mistake, and nothing ran.
			s.mu.Lock()
			s.turnOpen = false
			s.turnRepo, s.turnBase = nil, ""
			s.setActivityLocked(rpc.ActivityIdle)
			s.mu.Unlock()
			return refused
		}
		s.mu.Lock()
		open := s.turnOpen
		s.turnOpen = false
		s.turnRepo, s.turnBase = nil, "" // the turn never started
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
	s.mu.Lock()
	s.interrupted = s.turnOpen // its end pauses the queue (queue.go)
	s.mu.Unlock()
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
