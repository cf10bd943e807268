package claude

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// cli is what a session needs of its process while it runs; tests of the
// stdout handling stand in for it.
type cli interface {
	Write(line []byte) error
	ArmStall()
	DisarmStall()
}

// session is one running CLI process. Turn and prompt state, and the
// order in which events reach the sink, are the kit's (see runtimes/kit);
// mu guards what is Claude's own: the stream being assembled, the tools
// allowed for the session, why the process is being stopped.
type session struct {
	id  string
	log *zap.Logger

	ready chan struct{} // closed once cli and p are set
	cli   cli
	p     *proc.Process
	em    *kit.Emitter
	turn  *kit.Turn

	mu         sync.Mutex
	interrupts int             // numbers our interrupt requests
	allowed    map[string]bool // tools the user allowed for the session
	stream     streamState
	config     configured             // model, effort and mode the CLI runs with (configure.go)
	controlSeq int                    // numbers our configuration requests
	controls   map[string]chan string // their answers, by request id ("" success, else the refusal)

	stop *kit.Stopper
	// ending is p, its output dropped first: every stop ends through it
	// (kit.DiscardOnStop); discarding is set then, and the stdout reader
	// skips what still comes.
	ending     kit.Process
	discarding atomic.Bool
	// replies are control responses being written; added to only by the
	// stdout reader, so they are all counted once the process is done.
	replies sync.WaitGroup
}

// prompt is a control request waiting for the user: the kit keeps it as
// the pending prompt's data.
type prompt struct {
	toolName string
	input    json.RawMessage
	question *runtimes.QuestionPrompt // nil for a permission
}

func newSession(id string, sink runtimes.Sink, log *zap.Logger) *session {
	if sink == nil {
		sink = func(runtimes.Event) {}
	}
	em := kit.NewEmitter(sink, log)
	return &session{
		id:       id,
		log:      log,
		ready:    make(chan struct{}),
		em:       em,
		turn:     kit.NewTurn(em, nil),
		allowed:  map[string]bool{},
		controls: map[string]chan string{},
		stream:   newStreamState(),
		stop:     kit.NewStopper(),
	}
}

// run attaches the started process and starts delivering events.
func (s *session) run(p *proc.Process) {
	s.attach(p, p)
	s.em.Run()
	s.ending = kit.DiscardOnStop(p, func() {
		s.discarding.Store(true)
		s.em.Release()
	})
	s.stop.Watch(s.ending)
	go s.wait()
}

// attach sets what the session writes to and arms; tests of the stdout
// handling attach a stand-in.
func (s *session) attach(p *proc.Process, c cli) {
	s.p, s.cli = p, c
	s.turn.SetStaller(c)
	close(s.ready)
}

// wait ends the session once the process is gone: the running turn fails,
// prompts are withdrawn, and ProcessExited comes last.
func (s *session) wait() {
	<-s.p.Done()
	s.stop.Wait()
	s.replies.Wait() // a write to a dead process fails at once
	code := s.p.ExitCode()
	reason := s.stop.Reason()
	s.log.Info("claude exited", zap.Int("code", code), zap.String("reason", reason))
	s.turn.Exit(code, reason, fmt.Sprintf("claude exited with code %d during the turn", code))
}

// ID is the session id the CLI runs under.
func (s *session) ID() string { return s.id }

// Done is closed after ProcessExited was delivered.
func (s *session) Done() <-chan struct{} { return s.em.Done() }

// Send starts a turn with one stream-json user line, switching the CLI to
// the turn's model, effort and permission mode first.
func (s *session) Send(ctx context.Context, t runtimes.Turn) error {
	if err := s.turn.Begin(); err != nil {
		return err
	}
	if err := s.reconfigure(ctx, t); err != nil {
		s.turn.Abandon()
		return err
	}
	err := s.writeJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": userContent(t)}})
	if err != nil {
		s.turn.Abandon()
		return err
	}
	return nil
}

// userContent is a turn as Messages API content: each image as an image
// block (base64, as the model sees it), then the text.
func userContent(t runtimes.Turn) []any {
	var content []any
	for _, a := range t.Images() {
		content = append(content, map[string]any{"type": "image", "source": map[string]string{
			"type": "base64", "media_type": a.MIMEType, "data": base64.StdEncoding.EncodeToString(a.Data)}})
	}
	return append(content, map[string]string{"type": "text", "text": t.Text()})
}

// Respond answers a pending permission or question prompt.
func (s *session) Respond(_ context.Context, requestID string, a runtimes.Answer) error {
	err := s.turn.Answer(requestID, func(data any) (any, error) {
		p := data.(*prompt)
		resp, always, err := p.answer(a)
		if err == nil && always {
			s.mu.Lock()
			s.allowed[p.toolName] = true
			s.mu.Unlock()
		}
		return controlSuccess(requestID, resp), err
	}, s.writeJSON)
	if errors.Is(err, runtimes.ErrNoRequest) {
		return fmt.Errorf("claude: %w", err)
	}
	return err
}

// Interrupt asks the CLI to abandon the turn; it answers with an error
// result, which ends the turn as interrupted.
func (s *session) Interrupt(context.Context) error {
	running, err := s.turn.Interrupting()
	if err != nil || !running {
		return err
	}
	s.mu.Lock()
	s.interrupts++
	id := fmt.Sprintf("cdevd-interrupt-%d", s.interrupts)
	s.mu.Unlock()
	return s.writeJSON(map[string]any{"type": "control_request", "request_id": id,
		"request": map[string]string{"subtype": "interrupt"}})
}

// Close stops the process group (stdin closed, SIGTERM, SIGKILL after the
// grace or when ctx ends) and returns once ProcessExited was delivered.
func (s *session) Close(ctx context.Context) error {
	s.stop.Because("stopped")
	err := s.ending.Stop(ctx)
	<-s.em.Done()
	return err
}

// stall is proc's OnStall.
func (s *session) stall() {
	<-s.ready
	kit.Stalled(s.turn, s.stop, "claude")
}

// oversize is proc's OnOversize.
func (s *session) oversize(size int) {
	<-s.ready
	kit.Oversize(s.turn, s.stop, "claude", size)
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
