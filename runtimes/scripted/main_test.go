package scripted

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func TestMain(m *testing.M) {
	if IsCLI() {
		Main()
		return
	}
	goleak.VerifyTestMain(m)
}

// deadline bounds every wait; reaching it is a failure, never a result.
const deadline = 10 * time.Second

// newAdapter runs this test binary as the fake CLI. Warnings it logs are
// kept in the returned observer.
func newAdapter(t *testing.T, cfg Config) (*Adapter, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.WarnLevel)
	cfg.Bin = os.Args[0]
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	cfg.Logger = zap.New(core)
	return New(cfg), logs
}

// recorder is a sink that tests read from.
type recorder struct {
	ch      chan runtimes.Event
	prompts []string // sent, echo not seen yet
}

func (r *recorder) sink(e runtimes.Event) { r.ch <- e }

func (r *recorder) next(t *testing.T) runtimes.Event {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case e := <-r.ch:
			if !r.isEcho(e) {
				return e
			}
		case <-timeout:
			t.Fatal("timed out waiting for an event")
			return nil
		}
	}
}

// until reads events up to and including the first that matches stop, and
// returns them described.
func (r *recorder) until(t *testing.T, stop func(runtimes.Event) bool) ([]string, []runtimes.Event) {
	t.Helper()
	var desc []string
	var evs []runtimes.Event
	for {
		e := r.next(t)
		desc = append(desc, describe(e))
		evs = append(evs, e)
		if stop(e) {
			return desc, evs
		}
	}
}

// isEcho checks and consumes the echo of the oldest prompt sent and not yet
// echoed: the fake echoes each prompt (as Claude does), and tests describe
// the events that follow it.
func (r *recorder) isEcho(e runtimes.Event) bool {
	mc, ok := e.(runtimes.MessageCompleted)
	if !ok || mc.Message.Type != rpc.MessageUser || len(r.prompts) == 0 {
		return false
	}
	c := mc.Message.Message.Content
	if len(c) != 1 || c[0].Text != r.prompts[0] || mc.Message.ID == "" || mc.Message.Timestamp == "" {
		return false
	}
	r.prompts = r.prompts[1:]
	return true
}

func isActivity(a rpc.Activity) func(runtimes.Event) bool {
	return func(e runtimes.Event) bool {
		ac, ok := e.(runtimes.ActivityChanged)
		return ok && ac.Activity == a
	}
}

func isExit(e runtimes.Event) bool {
	_, ok := e.(runtimes.ProcessExited)
	return ok
}

// turnEvents reads the events of a turn, up to the idle that ends it.
func (r *recorder) turnEvents(t *testing.T) ([]string, []runtimes.Event) {
	t.Helper()
	return r.until(t, isTerminal)
}

// isTerminal is the event a turn ends with (after going idle).
func isTerminal(e runtimes.Event) bool {
	switch e.(type) {
	case runtimes.TurnCompleted, runtimes.TurnFailed:
		return true
	}
	return false
}

func describe(e runtimes.Event) string {
	switch e := e.(type) {
	case runtimes.MessageDelta:
		return fmt.Sprintf("delta %s %q", e.Phase, e.Text)
	case runtimes.MessageCompleted:
		var blocks []string
		for _, b := range e.Message.Message.Content {
			if b.Type == rpc.BlockThinking {
				blocks = append(blocks, "thinking:"+b.Thinking)
			} else {
				blocks = append(blocks, b.Text)
			}
		}
		return fmt.Sprintf("message %s %s", e.Message.Type, strings.Join(blocks, "|"))
	case runtimes.ActivityChanged:
		return "activity " + string(e.Activity)
	case runtimes.PromptRequested:
		if p := e.Permission; p != nil {
			return fmt.Sprintf("permission %s %s %s", p.Kind, p.ToolName, p.Target)
		}
		q := e.Question.Questions[0]
		var opts []string
		for _, o := range q.Options {
			opts = append(opts, o.Key)
		}
		return fmt.Sprintf("question %s %v", q.Question, opts)
	case runtimes.PromptCancelled:
		return "cancelled"
	case runtimes.TurnCompleted:
		return fmt.Sprintf("completed in=%d out=%d %s", e.Usage.InputTokens, e.Usage.OutputTokens, e.StopReason)
	case runtimes.TurnFailed:
		return "failed " + e.Code
	case runtimes.ProcessExited:
		return fmt.Sprintf("exited %d %s", e.ExitCode, e.Reason)
	}
	return fmt.Sprintf("unknown %T", e)
}

func assertEvents(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}

// started is a running session with its events.
type started struct {
	*session
	*recorder
	dir string // the workspace
}

// start starts a session in a fresh workspace (unless req.Dir is set). When
// the test ends it is closed and checked: ProcessExited came last, Done is
// closed and the process is gone.
func start(t *testing.T, a *Adapter, req runtimes.StartRequest) *started {
	t.Helper()
	if req.Dir == "" {
		req.Dir = t.TempDir()
	}
	r := &recorder{ch: make(chan runtimes.Event, 1000)}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	sess, err := a.Start(ctx, req, r.sink)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	s := &started{session: sess.(*session), recorder: r, dir: req.Dir}
	t.Cleanup(func() { s.closeAndCheck(t) })
	return s
}

// closeAndCheck closes the session (again) and checks how it ended.
func (s *started) closeAndCheck(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-s.Done():
	default:
		t.Error("Done is open after Close returned")
	}
	// Everything was delivered: the last event in the channel is the one
	// and only ProcessExited.
	var rest []runtimes.Event
	for len(s.ch) > 0 {
		rest = append(rest, <-s.ch)
	}
	if n := len(rest); n > 0 && !isExit(rest[n-1]) {
		t.Errorf("the last event is %s, want ProcessExited", describe(rest[n-1]))
	}
	for _, e := range rest[:max(len(rest)-1, 0)] {
		if isExit(e) {
			t.Error("ProcessExited was not the last event")
		}
	}
	if err := syscall.Kill(s.p.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(cli, 0) = %v: the CLI process is still there", err)
	}
}

// exit closes the session and returns the events from now to ProcessExited.
func (s *started) exit(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	got, _ := s.until(t, isExit)
	return got
}

// send starts a turn and fails the test if Send does.
func (s *started) send(t *testing.T, prompt string) {
	t.Helper()
	s.prompts = append(s.prompts, prompt)
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: prompt}); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

// scriptOf builds a script prompt from its steps.
func scriptOf(steps ...string) string {
	return `{"steps":[` + strings.Join(steps, ",") + `]}`
}
