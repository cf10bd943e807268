package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// session is one running fake CLI. Turn and prompt state, and the order
// of events, are the kit's; what is here is the fake's wire.
type session struct {
	id   string
	cfg  Config
	log  *zap.Logger
	em   *kit.Emitter
	turn *kit.Turn

	// hello gets the first line (init or error); greeted is only touched by
	// the stdout reader.
	hello   chan output
	greeted bool

	mu   sync.Mutex
	p    *proc.Process
	stop *kit.Stopper
}

// promptKind is what a pending prompt needs to be answered: whether it is a
// question (answered with text) or a permission (with a decision).
type promptKind struct{ question bool }

var _ runtimes.Session = (*session)(nil)

func newSession(id string, sink runtimes.Sink, cfg Config, log *zap.Logger) *session {
	em := kit.NewEmitter(sink, log)
	return &session{
		id:    id,
		cfg:   cfg,
		log:   log,
		em:    em,
		turn:  kit.NewTurn(em, nil),
		stop:  kit.NewStopper(),
		hello: make(chan output, 1),
	}
}

func (s *session) attach(p *proc.Process) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.p = p
	s.turn.SetStaller(p)
	s.stop.Watch(p)
}

// run starts delivering events, once Start has succeeded.
func (s *session) run() {
	s.em.Run()
	go s.watch()
}

// watch ends the session once the process is gone: the turn fails if one
// was running, and ProcessExited comes last.
func (s *session) watch() {
	<-s.p.Done()
	s.stop.Wait()
	code := s.p.ExitCode()
	s.turn.Exit(code, s.stop.Reason(), fmt.Sprintf("the CLI exited during the turn (exit code %d)", code))
}

// stopping reports whether the adapter is ending the process.
func (s *session) stopping() bool { return s.stop.Stopping() }

func (s *session) onLine(line []byte) {
	var o output
	if err := json.Unmarshal(line, &o); err != nil || o.Type == "" {
		s.log.Warn("ignoring a CLI line that is not an event", zap.Int("bytes", len(line)))
		return
	}
	if !s.greeted {
		s.greeted = true
		s.hello <- o
		return
	}
	if s.stopping() {
		return // the turn already ended; the CLI is on its way out
	}
	switch o.Type {
	case outDelta:
		s.em.Emit(runtimes.MessageDelta{MessageID: o.MessageID, Phase: o.Phase, Text: o.Text})
	case outMessage:
		if o.Message != nil {
			s.em.Emit(runtimes.MessageCompleted{Message: *o.Message})
		}
	case outPermission, outQuestion:
		s.promptFrom(o)
	case outCancelled:
		s.turn.Cancel(o.RequestID)
	case outResult:
		ev := runtimes.TurnCompleted{StopReason: o.StopReason, DurationMS: o.DurationMS}
		if o.Usage != nil {
			ev.Usage = *o.Usage
		}
		s.turn.End(ev)
	case outError:
		s.turn.End(runtimes.TurnFailed{Code: o.Code, Message: o.Error})
	default:
		s.log.Warn("ignoring an unknown CLI event", zap.String("type", o.Type))
	}
}

// promptFrom records a permission or question line's prompt. A prompt
// clients cannot tell apart (no id, or the id of one still open) could
// never be answered rightly (found by fuzzing): the kit refuses it.
func (s *session) promptFrom(o output) {
	var ok bool
	switch {
	case o.Type == outPermission && o.Permission != nil:
		ok = s.turn.Prompt(runtimes.PromptRequested{RequestID: o.RequestID,
			Permission: permissionPrompt(*o.Permission)}, promptKind{})
	case o.Type == outQuestion && o.Question != nil:
		ok = s.turn.Prompt(runtimes.PromptRequested{RequestID: o.RequestID,
			Question: questionPrompt(*o.Question)}, promptKind{question: true})
	}
	if !ok {
		s.log.Warn("ignoring a prompt without a unique request id", zap.String("request_id", o.RequestID))
	}
}

func (s *session) onStall() {
	if !s.stopping() {
		kit.Stalled(s.turn, s.stop, "the scripted CLI")
	}
}

func (s *session) onOversize(n int) {
	if !s.stopping() {
		kit.Oversize(s.turn, s.stop, "the scripted CLI", n)
	}
}

func permissionPrompt(p permissionStep) *runtimes.PermissionPrompt {
	return &runtimes.PermissionPrompt{
		Kind:        p.Kind,
		ToolName:    p.Tool,
		Target:      p.Target,
		Description: fmt.Sprintf("%s wants to run: %s", p.Tool, p.Target),
		Preview:     p.Target,
		Options: []rpc.Option{
			{Key: "yes", Label: "Allow once"},
			{Key: "always", Label: "Allow for this session"},
			{Key: "no", Label: "Deny"},
		},
	}
}

func questionPrompt(q questionStep) *runtimes.QuestionPrompt {
	opts := make([]rpc.Option, len(q.Options))
	for i, o := range q.Options {
		opts[i] = rpc.Option{Key: o, Label: o}
	}
	return &runtimes.QuestionPrompt{Questions: []rpc.Question{{Question: q.Text, Options: opts}}}
}

// ID is the session id the CLI confirmed.
func (s *session) ID() string { return s.id }

// Done is closed once ProcessExited was delivered.
func (s *session) Done() <-chan struct{} { return s.em.Done() }

// Send starts a turn.
func (s *session) Send(ctx context.Context, t runtimes.Turn) error {
	if s.stopping() {
		return runtimes.ErrExited
	}
	if err := s.turn.Begin(); err != nil {
		return err
	}
	if err := s.write(input{Type: inUser, Text: t.Prompt, Model: t.Model}); err != nil {
		// The CLI never got the turn: take it back rather than fail it.
		s.turn.Abandon()
		return err
	}
	return nil
}

// Respond answers a pending prompt; the CLI then continues its script.
func (s *session) Respond(ctx context.Context, requestID string, a runtimes.Answer) error {
	if s.stopping() {
		return runtimes.ErrExited
	}
	return s.turn.Answer(requestID, func(data any) (any, error) {
		if !data.(promptKind).question && !validDecision(a.Decision) {
			return nil, fmt.Errorf("scripted: %q is not a permission decision", a.Decision)
		}
		return input{Type: inAnswer, RequestID: requestID, Decision: a.Decision, Text: a.Text}, nil
	}, func(msg any) error { return s.write(msg.(input)) })
}

func validDecision(d runtimes.Decision) bool {
	return d == runtimes.Allow || d == runtimes.AllowAlways || d == runtimes.Deny
}

// Interrupt asks the CLI to abandon the running turn, which then fails
// with code interrupted (or ends normally if it was already finishing).
func (s *session) Interrupt(ctx context.Context) error {
	if s.stopping() {
		return runtimes.ErrExited
	}
	running, err := s.turn.Interrupting()
	if err != nil || !running {
		return err
	}
	return s.write(input{Type: inInterrupt})
}

// Steer sends input into the running turn; the fake takes it while its
// script waits (a prompt, a sleep).
func (s *session) Steer(ctx context.Context, t runtimes.Turn) error {
	if s.stopping() {
		return runtimes.ErrExited
	}
	if !s.turn.Busy() {
		return runtimes.ErrNoTurn
	}
	return s.write(input{Type: inSteer, Text: t.Prompt})
}

// Close stops the CLI and returns once ProcessExited was delivered.
func (s *session) Close(ctx context.Context) error {
	s.stop.Because("stopped")
	err := s.p.Stop(ctx)
	<-s.em.Done()
	return err
}

func (s *session) write(in input) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if err := s.p.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%w: %v", runtimes.ErrExited, err)
	}
	return nil
}
