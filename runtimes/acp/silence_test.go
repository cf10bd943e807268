package acp

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// A turn whose model says nothing for ModelSilence (the fake's HANG: the
// agent sends no update until cancelled, as Gemini retrying a failing API)
// ends with stall_timeout and a message saying what may be wrong, once the
// agent has acknowledged the cancel; the process lives on and the next turn
// works.
func TestModelSilenceGivesUpTheTurn(t *testing.T) {
	spec := fakeSpec(t, acpfake.Options{})
	spec.ModelSilence = 300 * time.Millisecond
	s, rec := start(t, New(spec), runtimes.StartRequest{Dir: workspace(t)})
	began := time.Now()
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "HANG"}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	took := time.Since(began)
	f, ok := evs[len(evs)-1].(runtimes.TurnFailed)
	if !ok || f.Code != runtimes.CodeStallTimeout || !strings.Contains(f.Message, "no answer from the model for 300ms; cancelled") ||
		!strings.Contains(f.Message, "Fake agent retries a failing model API") {
		t.Fatalf("turn ended %#v", evs[len(evs)-1])
	}
	if took < spec.ModelSilence {
		t.Errorf("given up after %v, before the silence of %v", took, spec.ModelSilence)
	}
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hello again"}); err != nil {
		t.Fatal(err)
	}
	if end := rec.until(t, isTurnEnd); !isA[runtimes.TurnCompleted](end[len(end)-1]) {
		t.Fatalf("the next turn: %#v", end)
	}
}

func isA[T runtimes.Event](ev runtimes.Event) bool { _, ok := ev.(T); return ok }

// The watch runs only while the turn waits on the model: a tool call open
// (announced or asked for, not finished) stops it, whatever else the agent
// says meanwhile; its end starts it again; the turn's end stops it.
func TestModelSilenceWaitsForTools(t *testing.T) {
	spec := fakeSpec(t, acpfake.Options{})
	spec.ModelSilence = time.Hour // never fires here: the test reads whether it is armed
	s := New(spec).newSession(t.TempDir(), kit.NewEmitter(func(runtimes.Event) {}, zaptest.NewLogger(t)))
	armed := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.silence.timer != nil
	}
	if s.heard("", toolNone); armed() {
		t.Fatal("armed outside a turn")
	}
	for _, step := range []struct {
		what  string
		do    func()
		armed bool
	}{
		{"turn begun", s.silenceBegin, true},
		{"a chunk", func() { s.heard("", toolNone) }, true},
		{"tool one asked for", func() { s.heard("one", toolOpened) }, false},
		{"tool two announced", func() { s.heard("two", toolOpened) }, false},
		{"a chunk while tools run", func() { s.heard("", toolNone) }, false},
		{"tool one done", func() { s.heard("one", toolClosed) }, false},
		{"tool two refused", func() { s.notRun("two", "refused") }, true},
		{"turn ended", func() { s.silenceEnd() }, false},
		{"a straggler", func() { s.heard("", toolNone) }, false},
	} {
		step.do()
		if armed() != step.armed {
			t.Errorf("after %s: armed %v, want %v", step.what, armed(), step.armed)
		}
	}
}
