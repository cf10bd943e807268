package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// ProcessExited reasons besides the fault codes (stall_timeout,
// output_too_large) that made the adapter stop the CLI.
const (
	reasonExited  = "exited"  // the CLI ended on its own
	reasonStopped = "stopped" // Close
)

// session is one running fake CLI.
type session struct {
	id   string
	sink runtimes.Sink
	cfg  Config
	log  *zap.Logger

	// hello gets the first line (init or error); greeted is only touched by
	// the stdout reader.
	hello   chan output
	greeted bool

	mu         sync.Mutex
	p          *proc.Process
	queue      []runtimes.Event // waiting for the delivery goroutine
	wake       chan struct{}
	exited     bool // ProcessExited is queued: nothing may follow it
	turn       bool
	pending    []pendingPrompt // oldest first
	stopReason string          // why the adapter is ending the process; "" while it is not

	done chan struct{} // closed after ProcessExited was delivered
}

type pendingPrompt struct {
	id       string
	question bool
}

var _ runtimes.Session = (*session)(nil)

func newSession(id string, sink runtimes.Sink, cfg Config, log *zap.Logger) *session {
	return &session{
		id:    id,
		sink:  sink,
		cfg:   cfg,
		log:   log,
		hello: make(chan output, 1),
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
}

func (s *session) attach(p *proc.Process) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.p = p
}

// run starts delivering events, once Start has succeeded.
func (s *session) run() {
	go s.deliver()
	go s.watch()
}

// deliver calls the sink from one goroutine, in order, outside s.mu so that
// a sink may call back into the session.
func (s *session) deliver() {
	defer close(s.done)
	for range s.wake {
		s.mu.Lock()
		batch, last := s.queue, s.exited
		s.queue = nil
		s.mu.Unlock()
		for _, e := range batch {
			s.sink(e)
		}
		if last {
			return
		}
	}
}

func (s *session) emitLocked(evs ...runtimes.Event) {
	if s.exited {
		return
	}
	s.queue = append(s.queue, evs...)
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// watch ends the session once the process is gone: the turn fails if one
// was running, and ProcessExited comes last.
func (s *session) watch() {
	<-s.p.Done()
	code := s.p.ExitCode()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishTurnLocked(runtimes.TurnFailed{
		Code:    runtimes.CodeCLIExited,
		Message: fmt.Sprintf("the CLI exited during the turn (exit code %d)", code),
	})
	reason := s.stopReason
	if reason == "" {
		reason = reasonExited
	}
	s.emitLocked(runtimes.ProcessExited{ExitCode: code, Reason: reason})
	s.exited = true
}

// finishTurnLocked ends the running turn, if any, with ev.
func (s *session) finishTurnLocked(ev runtimes.Event) {
	if !s.turn {
		return
	}
	s.turn = false
	s.p.DisarmStall()
	for _, p := range s.pending {
		s.emitLocked(runtimes.PromptCancelled{RequestID: p.id})
	}
	s.pending = nil
	s.emitLocked(ev, runtimes.ActivityChanged{Activity: rpc.ActivityIdle})
}

// stopLocked ends the process after a fault. Stop runs on its own goroutine
// because it waits for the output readers, which may be the caller.
func (s *session) stopLocked(reason string) {
	if s.stopReason != "" {
		return
	}
	s.stopReason = reason
	go func() { _ = s.p.Stop(context.Background()) }()
}

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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopReason != "" {
		return // the turn already ended; the CLI is on its way out
	}
	switch o.Type {
	case outDelta:
		s.emitLocked(runtimes.MessageDelta{MessageID: o.MessageID, Phase: o.Phase, Text: o.Text})
	case outMessage:
		if o.Message != nil {
			s.emitLocked(runtimes.MessageCompleted{Message: *o.Message})
		}
	case outPermission, outQuestion:
		// A prompt clients cannot tell apart (no id, or the id of one still
		// open) could never be answered rightly (found by fuzzing).
		if o.RequestID == "" || slices.ContainsFunc(s.pending, func(p pendingPrompt) bool { return p.id == o.RequestID }) {
			s.log.Warn("ignoring a prompt without a unique request id", zap.String("request_id", o.RequestID))
			return
		}
		s.promptFromLocked(o)
	case outCancelled:
		if s.removePendingLocked(o.RequestID) {
			s.emitLocked(runtimes.PromptCancelled{RequestID: o.RequestID})
		}
	case outResult:
		ev := runtimes.TurnCompleted{StopReason: o.StopReason, DurationMS: o.DurationMS}
		if o.Usage != nil {
			ev.Usage = *o.Usage
		}
		s.finishTurnLocked(ev)
	case outError:
		s.finishTurnLocked(runtimes.TurnFailed{Code: o.Code, Message: o.Error})
	default:
		s.log.Warn("ignoring an unknown CLI event", zap.String("type", o.Type))
	}
}

// promptFromLocked records a permission or question line's prompt.
func (s *session) promptFromLocked(o output) {
	switch {
	case o.Type == outPermission && o.Permission != nil:
		s.promptLocked(pendingPrompt{id: o.RequestID}, rpc.ActivityPermission, runtimes.PromptRequested{
			RequestID: o.RequestID, Permission: permissionPrompt(*o.Permission)})
	case o.Type == outQuestion && o.Question != nil:
		s.promptLocked(pendingPrompt{id: o.RequestID, question: true}, rpc.ActivityQuestion, runtimes.PromptRequested{
			RequestID: o.RequestID, Question: questionPrompt(*o.Question)})
	}
}

// promptLocked records a prompt the CLI waits for. The stall timer stops
// meanwhile: waiting for a person is not a hang.
func (s *session) promptLocked(p pendingPrompt, a rpc.Activity, ev runtimes.PromptRequested) {
	s.p.DisarmStall()
	s.pending = append(s.pending, p)
	s.emitLocked(ev, runtimes.ActivityChanged{Activity: a})
}

func (s *session) removePendingLocked(id string) bool {
	i := slices.IndexFunc(s.pending, func(p pendingPrompt) bool { return p.id == id })
	if i < 0 {
		return false
	}
	s.pending = slices.Delete(s.pending, i, i+1)
	return true
}

func (s *session) onStall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.turn || s.stopReason != "" {
		return
	}
	s.finishTurnLocked(runtimes.TurnFailed{
		Code:    runtimes.CodeStallTimeout,
		Message: fmt.Sprintf("the CLI wrote nothing for %s", s.cfg.StallTimeout),
	})
	s.stopLocked(runtimes.CodeStallTimeout)
}

func (s *session) onOversize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopReason != "" {
		return
	}
	s.finishTurnLocked(runtimes.TurnFailed{
		Code:    runtimes.CodeOutputTooLarge,
		Message: fmt.Sprintf("the CLI wrote a %d-byte line (limit %d)", n, s.cfg.MaxLine),
	})
	s.stopLocked(runtimes.CodeOutputTooLarge)
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
func (s *session) Done() <-chan struct{} { return s.done }

// Send starts a turn.
func (s *session) Send(ctx context.Context, t runtimes.Turn) error {
	s.mu.Lock()
	switch {
	case s.exited || s.stopReason != "":
		s.mu.Unlock()
		return runtimes.ErrExited
	case s.turn:
		s.mu.Unlock()
		return runtimes.ErrBusy
	}
	s.turn = true
	s.p.ArmStall()
	s.emitLocked(runtimes.ActivityChanged{Activity: rpc.ActivityThinking})
	s.mu.Unlock()

	if err := s.write(input{Type: inUser, Text: t.Prompt}); err != nil {
		// The CLI never got the turn: take it back rather than fail it.
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.turn {
			s.turn = false
			s.p.DisarmStall()
			s.emitLocked(runtimes.ActivityChanged{Activity: rpc.ActivityIdle})
		}
		return err
	}
	return nil
}

// Respond answers a pending prompt; the CLI then continues its script.
func (s *session) Respond(ctx context.Context, requestID string, a runtimes.Answer) error {
	s.mu.Lock()
	if s.exited || s.stopReason != "" {
		s.mu.Unlock()
		return runtimes.ErrExited
	}
	i := slices.IndexFunc(s.pending, func(p pendingPrompt) bool { return p.id == requestID })
	if i < 0 {
		s.mu.Unlock()
		return fmt.Errorf("%w: %q", runtimes.ErrNoRequest, requestID)
	}
	if !s.pending[i].question && !validDecision(a.Decision) {
		s.mu.Unlock()
		return fmt.Errorf("scripted: %q is not a permission decision", a.Decision)
	}
	s.pending = slices.Delete(s.pending, i, i+1)
	if len(s.pending) == 0 {
		s.p.ArmStall()
		s.emitLocked(runtimes.ActivityChanged{Activity: rpc.ActivityThinking})
	}
	s.mu.Unlock()
	return s.write(input{Type: inAnswer, RequestID: requestID, Decision: a.Decision, Text: a.Text})
}

func validDecision(d runtimes.Decision) bool {
	return d == runtimes.Allow || d == runtimes.AllowAlways || d == runtimes.Deny
}

// Interrupt asks the CLI to abandon the running turn, which then fails
// with code interrupted (or ends normally if it was already finishing).
func (s *session) Interrupt(ctx context.Context) error {
	s.mu.Lock()
	if s.exited || s.stopReason != "" {
		s.mu.Unlock()
		return runtimes.ErrExited
	}
	turn := s.turn
	s.mu.Unlock()
	if !turn {
		return nil
	}
	return s.write(input{Type: inInterrupt})
}

// Close stops the CLI and returns once ProcessExited was delivered.
func (s *session) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.stopReason == "" {
		s.stopReason = reasonStopped
	}
	s.mu.Unlock()
	err := s.p.Stop(ctx)
	<-s.done
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
