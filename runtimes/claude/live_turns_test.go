package claude

// The real CLI's turns: text, a second turn in one process, busy, resume
// (after a kill, after a killed background task, of an unknown id), model.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

func TestLiveTextTurn(t *testing.T) {
	l := newLive(t)
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "hello there")

	first := await[runtimes.ActivityChanged](t, evs, nil)
	if first.Activity != rpc.ActivityThinking {
		t.Errorf("first activity = %s, want thinking", first.Activity)
	}
	delta := await[runtimes.MessageDelta](t, evs, nil)
	msg := await(t, evs, func(m runtimes.MessageCompleted) bool { return m.Message.Type == rpc.MessageAssistant })
	done, ok := terminal(t, evs).(runtimes.TurnCompleted)
	if !ok {
		t.Fatalf("turn did not complete: %s", describe(evs.all()))
	}

	var text strings.Builder
	for _, ev := range evs.all() {
		if d, ok := ev.(runtimes.MessageDelta); ok && d.Phase == rpc.PhaseText {
			text.WriteString(d.Text)
		}
	}
	if got := text.String(); got != "echo: hello there" {
		t.Errorf("deltas spell %q", got)
	}
	if !strings.HasPrefix(delta.MessageID, "msg_fake_") || delta.MessageID != msg.Message.Message.ID {
		t.Errorf("delta message id = %q, complete message's API id = %q", delta.MessageID, msg.Message.Message.ID)
	}
	m := msg.Message
	if m.Type != rpc.MessageAssistant || m.SessionID != s.ID() || len(m.Message.Content) != 1 ||
		m.Message.Content[0].Text != "echo: hello there" {
		t.Errorf("message = %+v", m)
	}
	if done.StopReason != "end_turn" || done.Usage.InputTokens == 0 || done.Usage.OutputTokens == 0 ||
		done.CostUSD == nil || done.DurationMS <= 0 {
		t.Errorf("turn completed = %+v", done)
	}
	if n := count[runtimes.TurnCompleted](evs.all()) + count[runtimes.TurnFailed](evs.all()); n != 1 {
		t.Errorf("%d terminal events", n)
	}
	// History read back from the transcript has the same messages, the
	// user's prompt included: clients merge live and stored ones by id.
	stored := awaitStored(t, l, s.ID(), "echo: hello there")
	if stored.ID != m.ID || stored.UUID != m.UUID || stored.Message.Model != m.Message.Model {
		t.Errorf("stored message %+v differs from the live one %+v", stored, m)
	}
	var prompt *rpc.Message
	for _, ev := range evs.all() {
		if mc, ok := ev.(runtimes.MessageCompleted); ok && mc.Message.Type == rpc.MessageUser {
			if prompt != nil {
				t.Fatalf("the prompt was emitted twice")
			}
			prompt = &mc.Message
		}
	}
	if prompt == nil || len(prompt.Message.Content) != 1 || prompt.Message.Content[0].Text != "hello there" {
		t.Fatalf("the prompt was not echoed as a user message: %s", describe(evs.all()))
	}
	msgs, _, err := l.adapter.Transcripts().Messages(context.Background(), l.dir, s.ID(), 0, 50, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 || msgs[0].Type != rpc.MessageUser || msgs[0].ID != prompt.ID {
		t.Errorf("stored prompt %+v has another id than the live one %+v", msgs, prompt)
	}
}

// awaitStored waits until the CLI has written an assistant message with
// text to the session's transcript (it does so shortly after the turn).
func awaitStored(t *testing.T, l *live, id, text string) rpc.Message {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(claudetest.Timeout)
	for {
		msgs, _, err := l.adapter.Transcripts().Messages(context.Background(), l.dir, id, 0, 50, false)
		if err != nil && !errors.Is(err, runtimes.ErrNoSession) {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Type == rpc.MessageAssistant && len(m.Message.Content) > 0 && m.Message.Content[0].Text == text {
				return m
			}
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the transcript never got %q: %+v", text, msgs)
		}
	}
}

func TestLiveSecondTurnSameProcess(t *testing.T) {
	l := newLive(t)
	s, evs := l.start(runtimes.StartRequest{})
	pid := s.p.Pid()
	send(t, s, "first")
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatal("first turn did not complete")
	}
	send(t, s, "second")
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatal("second turn did not complete")
	}
	if s.p.Pid() != pid || gone(pid) {
		t.Errorf("the second turn did not run in process %d", pid)
	}
	reqs := l.fake.MessageRequests()
	last := reqs[len(reqs)-1].Transcript()
	if !strings.Contains(last, "user: first") || !strings.Contains(last, "assistant: echo: first") {
		t.Errorf("the model did not see the first turn:\n%s", last)
	}
}

func TestLiveBusyWhileTurnRuns(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(func(fakeanthropic.Request) fakeanthropic.Reply {
		return fakeanthropic.Slow("one two three four five six", 200*time.Millisecond)
	})
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "go")
	await[runtimes.MessageDelta](t, evs, nil)
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "again"}); !errors.Is(err, runtimes.ErrBusy) {
		t.Errorf("send during a turn: %v, want ErrBusy", err)
	}
	terminal(t, evs)
}

func TestLiveResumeAfterKill(t *testing.T) {
	l := newLive(t)
	s, evs := l.start(runtimes.StartRequest{})
	id := s.ID()
	send(t, s, "remember the word kumquat")
	terminal(t, evs)
	// SIGKILL loses what the CLI has not written yet.
	awaitStored(t, l, id, "echo: remember the word kumquat")

	if err := syscall.Kill(-s.p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	exited := await[runtimes.ProcessExited](t, evs, nil)
	if exited.ExitCode != -1 {
		t.Errorf("killed process exit code = %d", exited.ExitCode)
	}
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "x"}); !errors.Is(err, runtimes.ErrExited) {
		t.Errorf("send after exit: %v, want ErrExited", err)
	}

	r, revs := l.start(runtimes.StartRequest{SessionID: id, Resume: true})
	if r.ID() != id {
		t.Errorf("resumed id = %s, want %s", r.ID(), id)
	}
	send(t, r, "what was the word?")
	if _, ok := terminal(t, revs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("resumed turn did not complete: %s", describe(revs.all()))
	}
	reqs := l.fake.MessageRequests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.Transcript(), "kumquat") || last.LastUserText() != "what was the word?" {
		t.Errorf("the resumed model did not see the earlier turn:\n%s", last.Transcript())
	}
}

// TestLiveResumeAfterBackgroundTaskKilled: resumed after a background
// command died with the previous process, the CLI reports that command's
// end as a turn of its own (a result with no model call) just after the
// new prompt is written. That result must not end the prompt's turn.
func TestLiveResumeAfterBackgroundTaskKilled(t *testing.T) {
	l := newLive(t)
	pidFile := filepath.Join(t.TempDir(), "background.pid")
	l.fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		if req.LastUserText() != "start it" {
			return fakeanthropic.Echo(req)
		}
		if _, ok := req.ToolResult(); !ok {
			return fakeanthropic.UseTool("Bash", map[string]any{"command": "echo $$ > " + pidFile + " && exec sleep 300",
				"run_in_background": true, "description": "wait in the background"})
		}
		return fakeanthropic.Text("started")
	})
	s, evs := l.start(runtimes.StartRequest{PermissionMode: rpc.PermissionBypass})
	id := s.ID()
	send(t, s, "start it")
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("the first turn did not complete: %s", describe(evs.all()))
	}
	awaitStored(t, l, id, "started")
	pid := awaitPID(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	if err := syscall.Kill(-s.p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	await[runtimes.ProcessExited](t, evs, nil)
	// The command may run outside the CLI's process group.
	_ = syscall.Kill(pid, syscall.SIGKILL)

	r, revs := l.start(runtimes.StartRequest{SessionID: id, Resume: true, PermissionMode: rpc.PermissionBypass})
	send(t, r, "again") // at once, as cdevd does when a client resumes with a prompt
	done, ok := terminal(t, revs).(runtimes.TurnCompleted)
	if !ok {
		t.Fatalf("the resumed turn did not complete: %s", describe(revs.all()))
	}
	all := revs.all()
	answered := false
	for _, ev := range all {
		if m, ok := ev.(runtimes.MessageCompleted); ok && m.Message.Type == rpc.MessageAssistant &&
			len(m.Message.Message.Content) == 1 && m.Message.Message.Content[0].Text == "echo: again" {
			answered = true
		}
		if _, ok := ev.(runtimes.TurnCompleted); ok {
			break
		}
	}
	if !answered || done.StopReason != "end_turn" || done.Usage.OutputTokens == 0 {
		t.Fatalf("the turn completed (%+v) before its answer: %s", done, describe(all))
	}
	if n := count[runtimes.TurnCompleted](all) + count[runtimes.TurnFailed](all); n != 1 {
		t.Errorf("%d terminal events: %s", n, describe(all))
	}
	// The next turn is a turn of its own, with its own result.
	send(t, r, "and again")
	await(t, revs, func(m runtimes.MessageCompleted) bool {
		return m.Message.Type == rpc.MessageAssistant && len(m.Message.Message.Content) == 1 &&
			m.Message.Message.Content[0].Text == "echo: and again"
	})
	if _, ok := terminal(t, revs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("the next turn did not complete: %s", describe(revs.all()))
	}
}

// awaitPID waits for a background command to write its pid to file.
func awaitPID(t *testing.T, file string) int {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(claudetest.Timeout)
	for {
		var pid int
		if b, err := os.ReadFile(file); err == nil {
			if _, err := fmt.Sscanf(string(b), "%d", &pid); err == nil && pid > 0 {
				return pid
			}
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the background command never wrote %s", file)
		}
	}
}

func TestLiveResumeUnknownSession(t *testing.T) {
	l := newLive(t)
	_, err := l.adapter.Start(context.Background(), runtimes.StartRequest{
		SessionID: "0b6f3b8e-5d0c-4f4e-9c43-3f0d2f6b9a11", Resume: true, Dir: l.dir}, nil)
	if !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("resume of an unknown id: %v, want ErrNoSession", err)
	}
}

func TestLiveModel(t *testing.T) {
	for _, tc := range []struct{ model, prefix string }{
		{"sonnet", "claude-sonnet-"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			l := newLive(t)
			s, evs := l.start(runtimes.StartRequest{Model: tc.model})
			send(t, s, "hi")
			terminal(t, evs)
			reqs := l.fake.MessageRequests()
			if len(reqs) == 0 || !strings.HasPrefix(reqs[0].Model, tc.prefix) {
				t.Errorf("model %q reached the API as %+v", tc.model, reqs)
			}
		})
	}
}
