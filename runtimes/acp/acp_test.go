package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
)

// A text turn: the chunks stream as deltas of one message, which completes
// with the same id before the turn ends with the agent's stop reason and
// usage; the session goes thinking, then idle.
func TestTextTurn(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{}))
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	if err := runtimes.ValidSessionID(s.ID()); err != nil {
		t.Fatalf("session id %q: %v", s.ID(), err)
	}
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hello"}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if got := text(evs, rpc.PhaseText); got != "echo: hello" {
		t.Fatalf("streamed %q", got)
	}
	msgs := completed(evs)
	if len(msgs) != 1 || msgs[0].Type != rpc.MessageAssistant || msgs[0].Message.Content[0].Text != "echo: hello" {
		t.Fatalf("completed %+v", msgs)
	}
	var deltaID string
	var activities []rpc.Activity
	for _, ev := range evs {
		switch ev := ev.(type) {
		case runtimes.MessageDelta:
			deltaID = ev.MessageID
		case runtimes.ActivityChanged:
			activities = append(activities, ev.Activity)
		}
	}
	if msgs[0].Message.ID != deltaID || msgs[0].ID != deltaID {
		t.Errorf("message ids %q/%q, deltas streamed %q", msgs[0].ID, msgs[0].Message.ID, deltaID)
	}
	done, ok := evs[len(evs)-1].(runtimes.TurnCompleted)
	if !ok || done.StopReason != "end_turn" || done.Usage.InputTokens == 0 || done.Usage.OutputTokens == 0 {
		t.Fatalf("turn ended %#v", evs[len(evs)-1])
	}
	if strings.Join(activityStrings(activities), ",") != "thinking,idle" {
		t.Errorf("activities %v", activities)
	}
}

func activityStrings(as []rpc.Activity) []string {
	var s []string
	for _, a := range as {
		s = append(s, string(a))
	}
	return s
}

// A thought streams as thinking, without Gemini's bold subject line.
func TestThought(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{}))
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "THINK weighing it"}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if got := text(evs, rpc.PhaseThinking); got != "weighing it" {
		t.Fatalf("thinking %q", got)
	}
	msgs := completed(evs)
	if len(msgs) != 1 || len(msgs[0].Message.Content) != 2 || msgs[0].Message.Content[0].Thinking != "weighing it" {
		t.Fatalf("completed %+v", msgs)
	}
}

// The permission prompt offers the agent's own options (their kinds as
// yes / always / no, their names as labels); each answer does what it says.
func TestPermission(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{}))
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	ask := func(prompt string) runtimes.PromptRequested {
		t.Helper()
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: prompt}); err != nil {
			t.Fatal(err)
		}
		evs := rec.until(t, isPromptEvent)
		p := evs[len(evs)-1].(runtimes.PromptRequested)
		// The tool call is announced before its prompt.
		msgs := completed(evs)
		if len(msgs) == 0 || msgs[len(msgs)-1].Message.Content[0].Type != rpc.BlockToolUse {
			t.Fatalf("no tool_use before the prompt: %+v", msgs)
		}
		return p
	}
	finish := func(wantText string) []runtimes.Event {
		t.Helper()
		evs := rec.until(t, isTurnEnd)
		if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
			t.Fatalf("turn ended %#v", evs[len(evs)-1])
		}
		if got := text(evs, rpc.PhaseText); got != wantText {
			t.Fatalf("answer %q, want %q", got, wantText)
		}
		return evs
	}

	p := ask("TOOL make it")
	pp := p.Permission
	if pp == nil || pp.Kind != rpc.PermBash || pp.Target != "make it" {
		t.Fatalf("prompt %+v", p)
	}
	var keys []string
	for _, o := range pp.Options {
		keys = append(keys, o.Key+"="+o.Label)
	}
	if strings.Join(keys, ",") != "always=Allow for this session,yes=Allow,no=Reject" {
		t.Fatalf("options %v", keys)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: "maybe"}); err == nil {
		t.Fatal("an answer that is no decision was taken")
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Allow}); err != nil {
		t.Fatal(err)
	}
	evs := finish("done")
	var result string
	for _, m := range completed(evs) {
		for _, b := range m.Message.Content {
			if b.Type == rpc.BlockToolResult {
				_ = json.Unmarshal(b.Content, &result)
			}
		}
	}
	if result != "ran make it" {
		t.Fatalf("tool result %q", result)
	}

	p = ask("TOOL other")
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
		t.Fatal(err)
	}
	finish("denied")

	p = ask("TOOL again")
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Text: "always"}); err != nil {
		t.Fatal(err)
	}
	finish("done")
	// Allowed for the session: no prompt now.
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "TOOL once more"}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range finish("done") {
		if isPromptEvent(ev) {
			t.Fatal("asked again after allow-always")
		}
	}
}

// A send during a turn is refused (an ACP agent would cancel the running
// prompt); an interrupt ends the turn as interrupted, its partial answer
// completed.
func TestBusyAndInterrupt(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{}))
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "SLOW 200"}); err != nil {
		t.Fatal(err)
	}
	rec.until(t, func(ev runtimes.Event) bool { _, ok := ev.(runtimes.MessageDelta); return ok })
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hello"}); !errors.Is(err, runtimes.ErrBusy) {
		t.Fatalf("send during a turn: %v", err)
	}
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if f, ok := evs[len(evs)-1].(runtimes.TurnFailed); !ok || f.Code != runtimes.CodeInterrupted {
		t.Fatalf("turn ended %#v", evs[len(evs)-1])
	}
	if msgs := completed(evs); len(msgs) != 1 || !strings.HasPrefix(msgs[0].Message.Content[0].Text, "tick") {
		t.Fatalf("partial answer not completed: %+v", msgs)
	}
	// The session goes on.
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "after"}); err != nil {
		t.Fatal(err)
	}
	if got := text(rec.until(t, isTurnEnd), rpc.PhaseText); got != "echo: after" {
		t.Fatalf("after the interrupt: %q", got)
	}
}

// An interrupt while a permission prompt is open answers it cancelled (the
// agent would otherwise keep the prompt running) and withdraws it.
func TestInterruptDuringPermission(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{}))
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "TOOL wait"}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isPromptEvent)
	id := evs[len(evs)-1].(runtimes.PromptRequested).RequestID
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs = rec.until(t, isTurnEnd)
	cancelled := false
	for _, ev := range evs {
		if c, ok := ev.(runtimes.PromptCancelled); ok && c.RequestID == id {
			cancelled = true
		}
	}
	if !cancelled {
		t.Fatalf("prompt not withdrawn: %#v", evs)
	}
	if f, ok := evs[len(evs)-1].(runtimes.TurnFailed); !ok || f.Code != runtimes.CodeInterrupted {
		t.Fatalf("turn ended %#v", evs[len(evs)-1])
	}
	if err := s.Respond(context.Background(), id, runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Fatalf("answer to a withdrawn prompt: %v", err)
	}
}

// Resume: an agent that advertises loadSession continues a stored session
// in a new process, history intact; one that does not is refused, and the
// registry flag follows what the agent said.
func TestResumeWithLoad(t *testing.T) {
	spec := fakeSpec(t, acpfake.Options{LoadSession: true})
	a := New(spec)
	dir := workspace(t)
	if a.Info().Features.Resume {
		t.Fatal("resume advertised before the agent said it can load")
	}
	s, rec := start(t, a, runtimes.StartRequest{Dir: dir})
	id := s.ID()
	if !a.Info().Features.Resume {
		t.Fatal("resume not advertised for an agent that loads sessions")
	}
	for _, p := range []string{"one", "two"} {
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: p}); err != nil {
			t.Fatal(err)
		}
		rec.until(t, isTurnEnd)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s2, rec2 := start(t, a, runtimes.StartRequest{Dir: dir, SessionID: id, Resume: true})
	if s2.ID() != id {
		t.Fatalf("resumed %s as %s", id, s2.ID())
	}
	if err := s2.Send(context.Background(), runtimes.Turn{Prompt: "HISTORY"}); err != nil {
		t.Fatal(err)
	}
	evs := rec2.until(t, isTurnEnd)
	if got := text(evs, rpc.PhaseText); got != "one|two" {
		t.Fatalf("history after resume: %q", got)
	}
	// The load's replay is history, not new events.
	if msgs := completed(evs); len(msgs) != 1 {
		t.Fatalf("resumed session emitted %d messages: %+v", len(msgs), msgs)
	}

	if _, err := a.Start(ctx, runtimes.StartRequest{Dir: dir, SessionID: "3f1c7c84-5f0e-4c5e-9a53-9b0c1f00e001", Resume: true}, nil); !errors.Is(err, runtimes.ErrNoSession) {
		t.Fatalf("resume of an unknown session: %v", err)
	}

	noLoad := New(fakeSpec(t, acpfake.Options{}))
	if _, err := noLoad.Start(ctx, runtimes.StartRequest{Dir: dir, SessionID: id, Resume: true}, nil); !errors.Is(err, errNoLoad) {
		t.Fatalf("resume on an agent that cannot load: %v", err)
	}
	if noLoad.Info().Features.Resume {
		t.Fatal("resume advertised for an agent that cannot load")
	}
}

// Agents that omit "jsonrpc", print garbage or write to stderr still work.
func TestLooseAgent(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{NoJSONRPC: true}))
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	for _, p := range []string{"GARBAGE", "STDERR", "TOOL x"} {
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: p}); err != nil {
			t.Fatal(err)
		}
		evs := rec.until(t, func(ev runtimes.Event) bool { return isTurnEnd(ev) || isPromptEvent(ev) })
		if p := evs[len(evs)-1]; isPromptEvent(p) {
			if err := s.Respond(context.Background(), p.(runtimes.PromptRequested).RequestID, runtimes.Answer{Decision: runtimes.Allow}); err != nil {
				t.Fatal(err)
			}
			evs = rec.until(t, isTurnEnd)
		}
		if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
			t.Fatalf("%s: turn ended %#v", p, evs[len(evs)-1])
		}
	}
}

// Faults: an agent error fails the turn and the session goes on; a crash
// fails the turn and ends the session; a hang is a stall.
func TestFaults(t *testing.T) {
	t.Run("error", func(t *testing.T) {
		a := New(fakeSpec(t, acpfake.Options{}))
		s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: "FAIL"}); err != nil {
			t.Fatal(err)
		}
		evs := rec.until(t, isTurnEnd)
		if f, ok := evs[len(evs)-1].(runtimes.TurnFailed); !ok || f.Code != runtimes.CodeRuntimeError || !strings.Contains(f.Message, "model failed") {
			t.Fatalf("turn ended %#v", evs[len(evs)-1])
		}
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: "still here"}); err != nil {
			t.Fatal(err)
		}
		if got := text(rec.until(t, isTurnEnd), rpc.PhaseText); got != "echo: still here" {
			t.Fatalf("after the error: %q", got)
		}
	})
	t.Run("crash", func(t *testing.T) {
		a := New(fakeSpec(t, acpfake.Options{}))
		s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: "CRASH"}); err != nil {
			t.Fatal(err)
		}
		evs := rec.until(t, func(ev runtimes.Event) bool { _, ok := ev.(runtimes.ProcessExited); return ok })
		var failed *runtimes.TurnFailed
		for _, ev := range evs {
			if f, ok := ev.(runtimes.TurnFailed); ok {
				failed = &f
			}
		}
		if failed == nil || failed.Code != runtimes.CodeCLIExited {
			t.Fatalf("crash: %#v", evs)
		}
		if exit := evs[len(evs)-1].(runtimes.ProcessExited); exit.ExitCode != 3 {
			t.Fatalf("exit %+v", exit)
		}
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: "x"}); !errors.Is(err, runtimes.ErrExited) {
			t.Fatalf("send after the crash: %v", err)
		}
	})
	t.Run("hang", func(t *testing.T) {
		spec := fakeSpec(t, acpfake.Options{})
		spec.StallTimeout = 300 * time.Millisecond
		a := New(spec)
		s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: "HANG"}); err != nil {
			t.Fatal(err)
		}
		evs := rec.until(t, isTurnEnd)
		if f, ok := evs[len(evs)-1].(runtimes.TurnFailed); !ok || f.Code != runtimes.CodeStallTimeout {
			t.Fatalf("hang: %#v", evs[len(evs)-1])
		}
	})
}

// Detect: a declared agent found answers initialize with its version; a
// missing command is the reason the runtime is disabled.
func TestDetect(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{Version: "4.5.6"}))
	av := a.Detect(context.Background())
	if !av.Usable() || av.Version != "4.5.6" || av.Path != os.Args[0] {
		t.Fatalf("detect: %+v", av)
	}
	spec := fakeSpec(t, acpfake.Options{})
	spec.Command = filepath.Join(t.TempDir(), "no-such-agent")
	spec.CommandSource = "config.toml"
	av = New(spec).Detect(context.Background())
	if av.Usable() || !strings.Contains(av.Reason, "no-such-agent") || !strings.Contains(av.Reason, "config.toml") {
		t.Fatalf("missing agent: %+v", av)
	}
	// Not an ACP agent at all.
	spec.Command = "true"
	if av := New(spec).Detect(context.Background()); av.Usable() || !strings.Contains(av.Reason, "initialize") {
		t.Fatalf("not an agent: %+v", av)
	}
}

// Refused before anything starts: a client's id, a mode or a model the
// agent has no form for.
func TestRefusedRequests(t *testing.T) {
	a := New(fakeSpec(t, acpfake.Options{}))
	dir := workspace(t)
	ctx := context.Background()
	for name, req := range map[string]runtimes.StartRequest{
		"client id": {Dir: dir, SessionID: "3f1c7c84-5f0e-4c5e-9a53-9b0c1f00e001"},
		"mode":      {Dir: dir, PermissionMode: rpc.PermissionBypass},
		"yolo":      {Dir: dir, Yolo: true},
		"model":     {Dir: dir, Model: "big"},
	} {
		if _, err := a.Start(ctx, req, nil); err == nil {
			t.Errorf("%s: started", name)
		}
	}
}

// scriptedStore is a transcript reader whose Messages returns, call after
// call, the next of its versions (the last one from then on).
type scriptedStore struct {
	mu       sync.Mutex
	versions [][]rpc.Message
	calls    int
}

func (f *scriptedStore) Messages(context.Context, string, string, int, int, bool) ([]rpc.Message, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.versions[min(f.calls, len(f.versions)-1)]
	f.calls++
	out := slices.Clone(v)
	slices.Reverse(out) // newest first, as asked
	return out, len(v), nil
}
func (f *scriptedStore) List(context.Context, string) ([]runtimes.Summary, error) { return nil, nil }
func (f *scriptedStore) Tail(context.Context, string, string, func(rpc.Message)) (io.Closer, error) {
	return nil, errors.New("no tail")
}
func (f *scriptedStore) Has(context.Context, string, string) bool { return false }
func (f *scriptedStore) Trash(context.Context, string, string, runtimes.Bin) error {
	return runtimes.ErrNoSession
}
func (f *scriptedStore) Watch(string, func(string)) (io.Closer, error) {
	return nil, errors.New("no watch")
}

// With a transcript reader, the prompt is emitted as stored before the
// first delta, and an answer the agent stores while still writing it (then
// again with its usage) is emitted once, whole, at the turn's end.
func TestStoredMessagesOnce(t *testing.T) {
	text := func(id string, typ rpc.MessageType, s string, u *rpc.Usage) rpc.Message {
		return rpc.Message{ID: id, Type: typ, Message: rpc.MessageBody{Role: string(typ), Usage: u,
			Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: s}}}}
	}
	prompt := text("u1", rpc.MessageUser, "hello", nil)
	store := &scriptedStore{versions: [][]rpc.Message{
		nil, // at start: nothing stored
		{prompt, text("a1", rpc.MessageAssistant, "echo: hello", nil)},                         // at the first chunk
		{prompt, text("a1", rpc.MessageAssistant, "echo: hello", &rpc.Usage{OutputTokens: 2})}, // at the end
	}}
	spec := fakeSpec(t, acpfake.Options{})
	spec.Transcripts = store
	a := New(spec)
	if !a.Info().EchoesPrompts {
		t.Fatal("a runtime with a transcript reader does not echo prompts")
	}
	s, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hello"}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	var got []string
	for _, ev := range evs {
		switch ev := ev.(type) {
		case runtimes.MessageDelta:
			got = append(got, "delta")
		case runtimes.MessageCompleted:
			m := ev.Message
			got = append(got, m.ID+fmt.Sprint(m.Message.Usage != nil))
		}
	}
	if want := "u1false,delta,a1true"; strings.Join(slices.Compact(slices.Clone(got)), ",") != want {
		t.Fatalf("events %v, want %s", got, want)
	}
}
