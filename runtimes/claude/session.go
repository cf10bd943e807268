package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// cli is what a session needs of its process while it runs; tests of the
// stdout handling stand in for it.
type cli interface {
	Write(line []byte) error
	ArmStall()
	DisarmStall()
}

// session is one running CLI process. Its state is guarded by mu; events go
// through a queue to one delivery goroutine, so that the sink is never called
// from a caller of Send or Respond (which may hold the engine's locks) and
// always sees events in the order they were decided.
type session struct {
	id  string
	log *zap.Logger

	ready chan struct{} // closed once cli and p are set
	cli   cli
	p     *proc.Process
	emit  func(runtimes.Event)

	mu          sync.Mutex
	busy        bool   // a turn runs: it must end with exactly one terminal event
	interrupted bool   // Interrupt was asked during this turn
	interrupts  int    // numbers our interrupt requests
	exited      bool   // the process is gone
	stopReason  string // why cdevd stopped the process, for ProcessExited
	pending     map[string]*prompt
	allowed     map[string]bool // tools the user allowed for the session
	stream      streamState

	stopOnce    sync.Once
	stopReq     chan struct{} // closed to have stopper stop the process
	stopperDone chan struct{}
	// replies are control responses being written; added to only by the
	// stdout reader, so they are all counted once the process is done.
	replies sync.WaitGroup

	closeMu  sync.Mutex
	queue    []runtimes.Event
	wake     chan struct{}
	finished bool
	done     chan struct{}
}

// prompt is a control request waiting for the user.
type prompt struct {
	toolName string
	input    json.RawMessage
	question *runtimes.QuestionPrompt // nil for a permission
	answered bool                     // a Respond is writing its answer
}

func newSession(id string, log *zap.Logger) *session {
	return &session{
		id:          id,
		log:         log,
		ready:       make(chan struct{}),
		pending:     map[string]*prompt{},
		allowed:     map[string]bool{},
		stream:      newStreamState(),
		stopReq:     make(chan struct{}),
		stopperDone: make(chan struct{}),
		wake:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
}

// run attaches the started process and starts delivering events to sink.
func (s *session) run(p *proc.Process, sink runtimes.Sink) {
	s.p, s.cli, s.emit = p, p, s.enqueue
	close(s.ready)
	go s.deliver(sink)
	go s.stopper()
	go s.wait()
}

func (s *session) enqueue(ev runtimes.Event) {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.finished {
		s.log.Warn("event after ProcessExited dropped", zap.String("event", fmt.Sprintf("%T", ev)))
		return
	}
	s.queue = append(s.queue, ev)
	if _, last := ev.(runtimes.ProcessExited); last {
		s.finished = true
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *session) deliver(sink runtimes.Sink) {
	defer close(s.done)
	for range s.wake {
		s.closeMu.Lock()
		batch, finished := s.queue, s.finished
		s.queue = nil
		s.closeMu.Unlock()
		for _, ev := range batch {
			sink(ev)
		}
		if finished {
			return
		}
	}
}

// wait ends the session once the process is gone: the running turn fails,
// prompts are withdrawn, and ProcessExited comes last.
func (s *session) wait() {
	<-s.p.Done()
	<-s.stopperDone
	s.replies.Wait() // a write to a dead process fails at once
	code := s.p.ExitCode()

	s.mu.Lock()
	defer s.mu.Unlock()
	s.exited = true
	s.cancelPromptsLocked()
	if s.busy {
		s.endTurnLocked(runtimes.TurnFailed{Code: runtimes.CodeCLIExited,
			Message: fmt.Sprintf("claude exited with code %d during the turn", code)})
	}
	reason := s.stopReason
	if reason == "" {
		reason = "exited"
	}
	s.log.Info("claude exited", zap.Int("code", code), zap.String("reason", reason))
	s.emit(runtimes.ProcessExited{ExitCode: code, Reason: reason})
}

// ID is the session id the CLI runs under.
func (s *session) ID() string { return s.id }

// Done is closed after ProcessExited was delivered.
func (s *session) Done() <-chan struct{} { return s.done }

// Send starts a turn with one stream-json user line.
func (s *session) Send(_ context.Context, t runtimes.Turn) error {
	s.mu.Lock()
	switch {
	case s.exited:
		s.mu.Unlock()
		return runtimes.ErrExited
	case s.busy:
		s.mu.Unlock()
		return runtimes.ErrBusy
	}
	s.busy, s.interrupted = true, false
	s.emit(runtimes.ActivityChanged{Activity: rpc.ActivityThinking})
	s.cli.ArmStall()
	s.mu.Unlock()

	// Never write under mu: the CLI may block on a full stdout pipe while
	// we wait to write, and the stdout reader needs mu to drain it.
	err := s.writeJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []map[string]string{{"type": "text", "text": t.Prompt}}}})
	if err != nil {
		s.mu.Lock()
		if s.busy {
			s.busy = false
			s.cli.DisarmStall()
			s.emit(runtimes.ActivityChanged{Activity: rpc.ActivityIdle})
		}
		s.mu.Unlock()
		return err
	}
	return nil
}

// Respond answers a pending permission or question prompt.
func (s *session) Respond(_ context.Context, requestID string, a runtimes.Answer) error {
	s.mu.Lock()
	p, ok := s.pending[requestID]
	if !ok || p.answered {
		s.mu.Unlock()
		return fmt.Errorf("claude: request %q: %w", requestID, runtimes.ErrNoRequest)
	}
	resp, always, err := p.answer(a)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	p.answered = true
	s.mu.Unlock()

	if err := s.writeJSON(controlSuccess(requestID, resp)); err != nil {
		s.mu.Lock()
		p.answered = false
		s.mu.Unlock()
		return err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if always {
		s.allowed[p.toolName] = true
	}
	if _, still := s.pending[requestID]; still {
		delete(s.pending, requestID)
		s.resumeIfUnblockedLocked()
	}
	return nil
}

// resumeIfUnblockedLocked goes back to thinking, and to watching for a
// stall, once nothing waits for the user.
func (s *session) resumeIfUnblockedLocked() {
	if len(s.pending) > 0 || !s.busy {
		return
	}
	s.cli.ArmStall()
	s.emit(runtimes.ActivityChanged{Activity: rpc.ActivityThinking})
}

// Interrupt asks the CLI to abandon the turn; it answers with an error
// result, which ends the turn as interrupted.
func (s *session) Interrupt(context.Context) error {
	s.mu.Lock()
	if s.exited {
		s.mu.Unlock()
		return runtimes.ErrExited
	}
	if !s.busy {
		s.mu.Unlock()
		return nil
	}
	s.interrupted = true
	// A turn waiting for the user is not producing output; watch again for
	// the CLI to act on the interrupt.
	s.cli.ArmStall()
	s.interrupts++
	id := fmt.Sprintf("cdevd-interrupt-%d", s.interrupts)
	s.mu.Unlock()
	return s.writeJSON(map[string]any{"type": "control_request", "request_id": id,
		"request": map[string]string{"subtype": "interrupt"}})
}

// Close stops the process group (stdin closed, SIGTERM, SIGKILL after the
// grace or when ctx ends) and returns once ProcessExited was delivered.
func (s *session) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.stopReason == "" {
		s.stopReason = "stopped"
	}
	s.mu.Unlock()
	err := s.p.Stop(ctx)
	<-s.done
	return err
}

// stopAsync stops the process from a callback of the process itself, which
// must not wait for the process (its reader would wait for it in turn).
func (s *session) stopAsync(reason string) {
	s.mu.Lock()
	if s.stopReason == "" {
		s.stopReason = reason
	}
	s.mu.Unlock()
	s.stopOnce.Do(func() { close(s.stopReq) })
}

// stopper runs the stop stopAsync asks for, on a goroutine that ends with
// the process either way.
func (s *session) stopper() {
	defer close(s.stopperDone)
	select {
	case <-s.stopReq:
		_ = s.p.Stop(context.Background())
	case <-s.p.Done():
	}
}

// stall is proc's OnStall: the turn produced no output for too long. A turn
// that ended while the timer fired is no stall.
func (s *session) stall() {
	<-s.ready
	s.mu.Lock()
	if !s.busy {
		s.mu.Unlock()
		return
	}
	s.endTurnLocked(runtimes.TurnFailed{Code: runtimes.CodeStallTimeout,
		Message: "claude produced no output for too long; stopped"})
	s.mu.Unlock()
	s.stopAsync(runtimes.CodeStallTimeout)
}

// oversize is proc's OnOversize: a stdout line too long to hold was dropped,
// so the conversation can no longer be followed faithfully.
func (s *session) oversize(size int) {
	<-s.ready
	s.mu.Lock()
	if s.busy {
		s.endTurnLocked(runtimes.TurnFailed{Code: runtimes.CodeOutputTooLarge,
			Message: fmt.Sprintf("claude printed a %d-byte line, over the limit; stopped", size)})
	}
	s.mu.Unlock()
	s.stopAsync(runtimes.CodeOutputTooLarge)
}

// endTurnLocked ends the running turn with its one terminal event. Prompts
// of the turn are withdrawn: nothing will wait for their answers any more.
func (s *session) endTurnLocked(terminal runtimes.Event) {
	s.busy, s.interrupted = false, false
	s.cli.DisarmStall()
	s.cancelPromptsLocked()
	s.emit(runtimes.ActivityChanged{Activity: rpc.ActivityIdle})
	s.emit(terminal)
}

func (s *session) cancelPromptsLocked() {
	for _, id := range slices.Sorted(maps.Keys(s.pending)) {
		delete(s.pending, id)
		s.emit(runtimes.PromptCancelled{RequestID: id})
	}
}

func (s *session) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := s.cli.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("claude: write: %w", runtimes.ErrExited)
	}
	return nil
}
