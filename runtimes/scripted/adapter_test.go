package scripted

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// In CLIChoosesIDs mode the fake is a Codex or Gemini: the id comes from
// the CLI, a client's id for a new session is refused, and the CLI's id
// resumes.
func TestCLIChoosesIDs(t *testing.T) {
	a, _ := newAdapter(t, Config{CLIChoosesIDs: true})
	if a.Info().ClientIDs {
		t.Fatal("Info says clients may choose ids")
	}
	s := start(t, a, runtimes.StartRequest{})
	id := s.ID()
	if !strings.HasPrefix(id, "fake-") {
		t.Fatalf("session id %q was not made by the CLI", id)
	}
	s.send(t, "hi")
	s.turnEvents(t)
	s.exit(t)
	if _, err := a.Start(context.Background(), runtimes.StartRequest{SessionID: "mine", Dir: s.dir}, nil); err == nil {
		t.Fatal("a client-chosen id started a new session")
	}
	r := start(t, a, runtimes.StartRequest{SessionID: id, Resume: true, Dir: s.dir})
	if r.ID() != id {
		t.Fatalf("resumed as %q, want %q", r.ID(), id)
	}
}

func TestInfo(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	info := a.Info()
	want := runtimes.Info{ID: "scripted", DisplayName: "Scripted (test)", Maturity: runtimes.Complete,
		Features: runtimes.Features{Resume: true, InteractiveQuestions: true, Permissions: true, IDKnownAtStart: true,
			ActivateOnResume: true, Configure: true, Steering: true},
		EchoesPrompts: true, ClientIDs: true,
		PermissionModes: []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionBypass, rpc.PermissionInteractive}}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("Info = %+v, want %+v", info, want)
	}
	only := runtimes.Features{IDKnownAtStart: true}
	a, _ = newAdapter(t, Config{Features: &only})
	if got := a.Info().Features; got != only {
		t.Errorf("overridden Features = %+v, want %+v", got, only)
	}
}

func TestDetect(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	av := a.Detect(context.Background())
	if !av.Usable() || av.Version != "1.0.0" || av.Path == "" {
		t.Errorf("Detect = %+v, want usable version 1.0.0 with a path", av)
	}

	for _, bin := range []string{"", filepath.Join(t.TempDir(), "missing")} {
		av := New(Config{Bin: bin}).Detect(context.Background())
		if av.Installed || av.Reason == "" {
			t.Errorf("Detect with Bin %q = %+v, want not installed with a reason", bin, av)
		}
	}
}

// A turn's model is the fake's from that turn on (Features.Configure).
func TestTurnModel(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{SessionID: "s-1", Model: "m-1"})
	s.prompts = append(s.prompts, "switched")
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "switched", Model: "m-2"}); err != nil {
		t.Fatal(err)
	}
	_, evs := s.turnEvents(t)
	s.send(t, "kept")
	_, later := s.turnEvents(t)
	n := 0
	for _, ev := range append(evs, later...) {
		if m, ok := ev.(runtimes.MessageCompleted); ok && m.Message.Message.Role == "assistant" {
			n++
			if m.Message.Message.Model != "m-2" {
				t.Errorf("after the switch, a message of model %q", m.Message.Message.Model)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d assistant messages, want 2", n)
	}
}

func TestEchoTurns(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{SessionID: "s-1", Model: "m-1"})
	if s.ID() != "s-1" {
		t.Errorf("ID = %q, want s-1", s.ID())
	}

	s.send(t, "hi")
	got, evs := s.turnEvents(t)
	assertEvents(t, got, "activity thinking", `delta text "echo: "`, `delta text "hi"`,
		"message assistant echo: hi", "activity idle", "completed in=2 out=8 end_turn")
	msg := evs[3].(runtimes.MessageCompleted).Message
	for _, d := range evs[1:3] {
		if id := d.(runtimes.MessageDelta).MessageID; id != msg.ID {
			t.Errorf("delta of message %q, completed message %q", id, msg.ID)
		}
	}
	if msg.SessionID != "s-1" || msg.Message.Role != "assistant" || msg.Message.Model != "m-1" || msg.UUID == "" || msg.Timestamp == "" {
		t.Errorf("message = %+v", msg)
	}

	// The same process serves the next turn.
	s.send(t, "again")
	got, _ = s.turnEvents(t)
	assertEvents(t, got, "activity thinking", `delta text "echo: "`, `delta text "again"`,
		"message assistant echo: again", "activity idle", "completed in=5 out=11 end_turn")

	msgs, total, err := a.Transcripts().Messages(context.Background(), s.dir, "s-1", 0, 0, false)
	if err != nil {
		t.Fatalf("Messages: %v", err)
	}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, string(m.Type)+": "+m.Message.Content[0].Text)
	}
	if want := []string{"user: hi", "assistant: echo: hi", "user: again", "assistant: echo: again"}; total != 4 || fmt.Sprint(texts) != fmt.Sprint(want) {
		t.Errorf("transcript (%d) = %q, want %q", total, texts, want)
	}

	assertEvents(t, s.exit(t), "exited 0 stopped")
}

func TestScriptSteps(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
		want  []string // after "activity thinking"; the last, terminal one comes after "activity idle"
		fail  string   // TurnFailed message, when the turn fails
	}{
		{
			name:  "deltas then message",
			steps: []string{`{"delta":"a"}`, `{"delta":"b"}`, `{"message":"ab"}`},
			want:  []string{`delta text "a"`, `delta text "b"`, "message assistant ab", "completed in=%d out=2 end_turn"},
		},
		{
			name:  "thinking",
			steps: []string{`{"thinking":"hmm"}`, `{"message":"done"}`},
			want:  []string{`delta thinking "hmm"`, "message assistant thinking:hmm", "message assistant done", "completed in=%d out=7 end_turn"},
		},
		{
			name:  "sleep",
			steps: []string{`{"sleep_ms":5}`, `{"message":"late"}`},
			want:  []string{"message assistant late", "completed in=%d out=4 end_turn"},
		},
		{
			name:  "fail skips the rest",
			steps: []string{`{"message":"x"}`, `{"fail":"boom"}`, `{"message":"never"}`},
			want:  []string{"message assistant x", "failed runtime_error"},
			fail:  "boom",
		},
		{
			name:  "unknown step",
			steps: []string{`{"dance":true}`},
			want:  []string{"failed runtime_error"},
			fail:  "unknown script step",
		},
		{
			name: "no steps",
			want: []string{"completed in=%d out=0 end_turn"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := newAdapter(t, Config{})
			s := start(t, a, runtimes.StartRequest{})
			prompt := scriptOf(tt.steps...)
			s.send(t, prompt)
			got, evs := s.turnEvents(t)
			want := []string{"activity thinking"}
			for _, w := range tt.want {
				if strings.Contains(w, "%d") {
					w = fmt.Sprintf(w, len(prompt))
				}
				want = append(want, w)
			}
			want = append(want[:len(want)-1], "activity idle", want[len(want)-1])
			assertEvents(t, got, want...)
			if tf, ok := evs[len(evs)-1].(runtimes.TurnFailed); ok && tf.Message != tt.fail {
				t.Errorf("TurnFailed message %q, want %q", tf.Message, tt.fail)
			}
			// A failed turn leaves the CLI ready for the next one.
			s.send(t, "next")
			if got, _ := s.turnEvents(t); got[len(got)-1] != "completed in=4 out=10 end_turn" {
				t.Errorf("next turn: %q", got)
			}
		})
	}
}

const bash = `{"permission":{"tool":"Bash","target":"rm -rf x","kind":"bash_command"}}`

// prompted reads a turn's events up to the prompt's activity and returns
// the prompt.
func (s *started) prompted(t *testing.T, a rpc.Activity, want ...string) runtimes.PromptRequested {
	t.Helper()
	got, evs := s.until(t, isActivity(a))
	assertEvents(t, got, want...)
	for _, e := range evs {
		if p, ok := e.(runtimes.PromptRequested); ok {
			return p
		}
	}
	t.Fatal("no prompt")
	return runtimes.PromptRequested{}
}

func TestPermission(t *testing.T) {
	for _, d := range []runtimes.Decision{runtimes.Allow, runtimes.AllowAlways, runtimes.Deny} {
		t.Run(string(d), func(t *testing.T) {
			a, _ := newAdapter(t, Config{})
			s := start(t, a, runtimes.StartRequest{})
			s.send(t, scriptOf(bash, `{"message":"after"}`))
			p := s.prompted(t, rpc.ActivityPermission,
				"activity thinking", "permission bash_command Bash rm -rf x", "activity permission")
			var keys []string
			for _, o := range p.Permission.Options {
				keys = append(keys, o.Key)
			}
			if fmt.Sprint(keys) != "[yes always no]" {
				t.Errorf("option keys %v, want [yes always no]", keys)
			}

			if err := s.Send(context.Background(), runtimes.Turn{Prompt: "x"}); !errors.Is(err, runtimes.ErrBusy) {
				t.Errorf("Send during a turn = %v, want ErrBusy", err)
			}
			if err := s.Respond(context.Background(), "nope", runtimes.Answer{Decision: d}); !errors.Is(err, runtimes.ErrNoRequest) {
				t.Errorf("Respond to an unknown request = %v, want ErrNoRequest", err)
			}
			if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: "maybe"}); err == nil || errors.Is(err, runtimes.ErrNoRequest) {
				t.Errorf("Respond with a bad decision = %v, want an error that keeps the prompt", err)
			}
			if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: d}); err != nil {
				t.Fatalf("Respond: %v", err)
			}
			got, _ := s.turnEvents(t)
			assertEvents(t, got, "activity thinking", "message assistant permission: "+string(d),
				"message assistant after", "activity idle",
				fmt.Sprintf("completed in=%d out=%d end_turn", len(scriptOf(bash, `{"message":"after"}`)), len("permission: "+d)+5))
			if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: d}); !errors.Is(err, runtimes.ErrNoRequest) {
				t.Errorf("second Respond = %v, want ErrNoRequest", err)
			}
		})
	}
}

func TestPermissionAllowAlwaysLasts(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, scriptOf(bash, bash))
	p := s.prompted(t, rpc.ActivityPermission, "activity thinking", "permission bash_command Bash rm -rf x", "activity permission")
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.AllowAlways}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	got, _ := s.turnEvents(t)
	if want := []string{"activity thinking", "message assistant permission: allow_always", "message assistant permission: allow"}; fmt.Sprint(got[:3]) != fmt.Sprint(want) {
		t.Errorf("events %q, want them to start with %q", got, want)
	}
}

func TestPermissionSkipped(t *testing.T) {
	for name, req := range map[string]runtimes.StartRequest{
		"yolo":              {Yolo: true},
		"bypassPermissions": {PermissionMode: rpc.PermissionBypass},
	} {
		t.Run(name, func(t *testing.T) {
			a, _ := newAdapter(t, Config{})
			s := start(t, a, req)
			prompt := scriptOf(bash)
			s.send(t, prompt)
			got, _ := s.turnEvents(t)
			assertEvents(t, got, "activity thinking", "message assistant permission: allow",
				"activity idle", fmt.Sprintf("completed in=%d out=17 end_turn", len(prompt)))
		})
	}
}

// Every mode the adapter declares does what it says: bypassPermissions
// allows the tool unasked (TestPermissionSkipped), the others ask.
func TestDeclaredPermissionModesAsk(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	for _, m := range a.Info().PermissionModes {
		if m == rpc.PermissionBypass {
			continue
		}
		t.Run(string(m), func(t *testing.T) {
			s := start(t, a, runtimes.StartRequest{PermissionMode: m})
			s.send(t, scriptOf(bash))
			p := s.prompted(t, rpc.ActivityPermission, "activity thinking", "permission bash_command Bash rm -rf x", "activity permission")
			if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
				t.Fatalf("Respond: %v", err)
			}
			got, _ := s.turnEvents(t)
			if len(got) < 2 || got[1] != "message assistant permission: deny" {
				t.Errorf("events %q, want the denial", got)
			}
		})
	}
}

func TestQuestion(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	prompt := scriptOf(`{"question":{"text":"Pick one","options":["red","blue"]}}`)
	s.send(t, prompt)
	p := s.prompted(t, rpc.ActivityQuestion, "activity thinking", "question Pick one [red blue]", "activity question")
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Text: "blue"}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	got, _ := s.turnEvents(t)
	assertEvents(t, got, "activity thinking", "message assistant answer: blue",
		"activity idle", fmt.Sprintf("completed in=%d out=12 end_turn", len(prompt)))
}

func TestInterrupt(t *testing.T) {
	tests := []struct {
		name   string
		steps  []string
		before []string // events to wait for before interrupting
		after  []string
	}{
		{
			name:   "wait_interrupt",
			steps:  []string{`{"wait_interrupt":true}`, `{"message":"never"}`},
			before: []string{"activity thinking"},
			after:  []string{"activity idle", "failed interrupted"},
		},
		{
			name:   "slow stream",
			steps:  []string{`{"message":"one"}`, `{"sleep_ms":600000}`, `{"message":"never"}`},
			before: []string{"activity thinking", "message assistant one"},
			after:  []string{"activity idle", "failed interrupted"},
		},
		{
			name:   "pending permission",
			steps:  []string{bash},
			before: []string{"activity thinking", "permission bash_command Bash rm -rf x", "activity permission"},
			after:  []string{"cancelled", "activity idle", "failed interrupted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := newAdapter(t, Config{})
			s := start(t, a, runtimes.StartRequest{})
			s.send(t, scriptOf(tt.steps...))
			var got []string
			for range tt.before {
				got = append(got, describe(s.next(t)))
			}
			assertEvents(t, got, tt.before...)
			if err := s.Interrupt(context.Background()); err != nil {
				t.Fatalf("Interrupt: %v", err)
			}
			got, _ = s.turnEvents(t)
			assertEvents(t, got, tt.after...)
			s.send(t, "next")
			if got, _ := s.turnEvents(t); got[len(got)-1] != "completed in=4 out=10 end_turn" {
				t.Errorf("turn after the interrupt: %q", got)
			}
		})
	}
}

func TestInterruptWhileIdle(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatalf("Interrupt while idle: %v", err)
	}
	// Nothing stale reaches the next turn.
	prompt := scriptOf(`{"sleep_ms":1}`, `{"message":"ok"}`)
	s.send(t, prompt)
	got, _ := s.turnEvents(t)
	assertEvents(t, got, "activity thinking", "message assistant ok",
		"activity idle", fmt.Sprintf("completed in=%d out=2 end_turn", len(prompt)))
}

func TestCloseDuringTurn(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, scriptOf(`{"sleep_ms":600000}`))
	s.next(t) // activity thinking
	assertEvents(t, s.exit(t), "activity idle", "failed cli_exited", "exited 0 stopped")
}

func TestCloseCancelsPendingPrompt(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, scriptOf(bash))
	s.prompted(t, rpc.ActivityPermission, "activity thinking", "permission bash_command Bash rm -rf x", "activity permission")
	assertEvents(t, s.exit(t), "cancelled", "activity idle", "failed cli_exited", "exited 0 stopped")
}

func TestCloseConcurrentAndAfter(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if err := s.Close(context.Background()); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	assertEvents(t, []string{describe(s.next(t))}, "exited 0 stopped")

	ctx := context.Background()
	if err := s.Send(ctx, runtimes.Turn{Prompt: "hi"}); !errors.Is(err, runtimes.ErrExited) {
		t.Errorf("Send after Close = %v, want ErrExited", err)
	}
	if err := s.Respond(ctx, "r", runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrExited) {
		t.Errorf("Respond after Close = %v, want ErrExited", err)
	}
	if err := s.Interrupt(ctx); !errors.Is(err, runtimes.ErrExited) {
		t.Errorf("Interrupt after Close = %v, want ErrExited", err)
	}
}

func TestResume(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	first := start(t, a, runtimes.StartRequest{})
	first.send(t, "one")
	first.turnEvents(t)
	first.exit(t)

	s := start(t, a, runtimes.StartRequest{SessionID: first.ID(), Resume: true, Dir: first.dir})
	if s.ID() != first.ID() {
		t.Errorf("resumed id %q, want %q", s.ID(), first.ID())
	}
	s.send(t, "two")
	s.turnEvents(t)
	_, total, err := a.Transcripts().Messages(context.Background(), s.dir, s.ID(), 0, 0, false)
	if err != nil || total != 4 {
		t.Errorf("transcript after resume: %d messages, %v; want 4", total, err)
	}
}

func TestStartFailures(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	r := &recorder{ch: make(chan runtimes.Event, 10)}
	ctx := context.Background()

	_, err := a.Start(ctx, runtimes.StartRequest{SessionID: "unknown", Resume: true, Dir: t.TempDir()}, r.sink)
	if !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("resume of an unknown session: %v, want ErrNoSession", err)
	}
	if _, err := a.Start(ctx, runtimes.StartRequest{Dir: filepath.Join(t.TempDir(), "missing")}, r.sink); err == nil {
		t.Error("Start in a missing directory succeeded")
	}
	if _, err := a.Start(ctx, runtimes.StartRequest{SessionID: "../escape", Dir: t.TempDir()}, r.sink); !errors.Is(err, runtimes.ErrBadSessionID) {
		t.Errorf("Start with a path as session id: %v, want ErrBadSessionID", err)
	}
	missing := New(Config{Bin: filepath.Join(t.TempDir(), "missing"), StateDir: t.TempDir()})
	if _, err := missing.Start(ctx, runtimes.StartRequest{Dir: t.TempDir()}, r.sink); err == nil {
		t.Error("Start with a missing CLI succeeded")
	}
	if len(r.ch) != 0 {
		t.Errorf("a failed Start delivered %s", describe(<-r.ch))
	}
}
