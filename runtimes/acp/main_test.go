package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

func TestMain(m *testing.M) {
	if acpfake.IsAgent() {
		acpfake.Main()
		return
	}
	goleak.VerifyTestMain(m)
}

// deadline bounds every wait; reaching it is a failure, never a result.
const deadline = 20 * time.Second

// fakeSpec is a declared agent: this test binary as the fake ACP agent.
func fakeSpec(t *testing.T, o acpfake.Options) Spec {
	t.Helper()
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	return Spec{
		ID: "fake", DisplayName: "Fake agent", Maturity: runtimes.Preview,
		Command:   os.Args[0],
		Env:       append(os.Environ(), acpfake.Env(o)...),
		KillGrace: 5 * time.Second,
		Logger:    zaptest.NewLogger(t),
		// The fake refuses an unknown load as Gemini does.
		UnknownSession: func(e *stdiorpc.Error) bool { return strings.Contains(string(e.Data), "No previous sessions") },
	}
}

// workspace is a canonical temporary directory.
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// recorder collects a session's events.
type recorder struct {
	ch chan runtimes.Event
}

func newRecorder() *recorder { return &recorder{ch: make(chan runtimes.Event, 10000)} }

func (r *recorder) sink(ev runtimes.Event) { r.ch <- ev }

// until returns the events up to and including the first that match
// accepts; the test fails when none comes.
func (r *recorder) until(t *testing.T, match func(runtimes.Event) bool) []runtimes.Event {
	t.Helper()
	var evs []runtimes.Event
	timeout := time.After(deadline)
	for {
		select {
		case ev := <-r.ch:
			evs = append(evs, ev)
			if match(ev) {
				return evs
			}
		case <-timeout:
			t.Fatalf("event not seen; got %#v", evs)
			return nil
		}
	}
}

func isTurnEnd(ev runtimes.Event) bool {
	switch ev.(type) {
	case runtimes.TurnCompleted, runtimes.TurnFailed:
		return true
	}
	return false
}

func isPromptEvent(ev runtimes.Event) bool { _, ok := ev.(runtimes.PromptRequested); return ok }

// start starts a session of a and closes it when the test ends.
func start(t *testing.T, a *Adapter, req runtimes.StartRequest) (runtimes.Session, *recorder) {
	t.Helper()
	rec := newRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s, err := a.Start(ctx, req, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s, rec
}

// text is the text the deltas among evs streamed, by phase.
func text(evs []runtimes.Event, phase rpc.DeltaPhase) string {
	var s string
	for _, ev := range evs {
		if d, ok := ev.(runtimes.MessageDelta); ok && d.Phase == phase {
			s += d.Text
		}
	}
	return s
}

// completed is the messages among evs.
func completed(evs []runtimes.Event) []rpc.Message {
	var ms []rpc.Message
	for _, ev := range evs {
		if m, ok := ev.(runtimes.MessageCompleted); ok {
			ms = append(ms, m.Message)
		}
	}
	return ms
}
