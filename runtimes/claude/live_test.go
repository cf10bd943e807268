package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// These tests run the real Claude Code CLI against the fake API.

// live is one test's CLI environment: the fake API, a workspace, an adapter.
type live struct {
	t       *testing.T
	fake    *fakeanthropic.Server
	dir     string
	adapter *Adapter
}

func newLive(t *testing.T) *live {
	t.Helper()
	fake := fakeanthropic.New(t)
	bin := claudetest.Bin(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &live{t: t, fake: fake, dir: dir, adapter: New(Config{
		Bin:       bin,
		Env:       claudetest.Env(t, fake.URL()),
		KillGrace: 2 * time.Second,
		Logger:    zaptest.NewLogger(t),
	})}
}

// start starts a session that is closed when the test ends.
func (l *live) start(req runtimes.StartRequest) (*session, *events) {
	l.t.Helper()
	if req.Dir == "" {
		req.Dir = l.dir
	}
	evs := newEvents()
	sess, err := l.adapter.Start(claudetest.Context(l.t), req, evs.add)
	if err != nil {
		l.t.Fatalf("start: %v", err)
	}
	l.t.Cleanup(func() { closeSession(l.t, sess) })
	return sess.(*session), evs
}

func closeSession(t *testing.T, s runtimes.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
}

// events records a session's events for tests to wait on, in order.
type events struct {
	mu      sync.Mutex
	list    []runtimes.Event
	changed chan struct{} // closed and replaced on every event
	next    int           // the position await searches from
}

func newEvents() *events { return &events{changed: make(chan struct{})} }

func (e *events) add(ev runtimes.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *events) all() []runtimes.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]runtimes.Event(nil), e.list...)
}

// await returns the first event after the previous await's that matches,
// failing the test if none comes in time.
func await[T runtimes.Event](t *testing.T, e *events, match func(T) bool) T {
	t.Helper()
	deadline := time.NewTimer(claudetest.Timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		for ; e.next < len(e.list); e.next++ {
			if ev, ok := e.list[e.next].(T); ok && (match == nil || match(ev)) {
				e.next++
				e.mu.Unlock()
				return ev
			}
		}
		changed := e.changed
		e.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			var zero T
			t.Fatalf("no %T event came; got %s", zero, describe(e.all()))
		}
	}
}

func describe(evs []runtimes.Event) string {
	var parts []string
	for _, ev := range evs {
		parts = append(parts, fmt.Sprintf("%T%+v", ev, ev))
	}
	return strings.Join(parts, "\n  ")
}

// terminal awaits the event that ends the turn.
func terminal(t *testing.T, e *events) runtimes.Event {
	t.Helper()
	return await(t, e, func(ev runtimes.Event) bool {
		switch ev.(type) {
		case runtimes.TurnCompleted, runtimes.TurnFailed:
			return true
		}
		return false
	})
}

func count[T runtimes.Event](evs []runtimes.Event) int {
	n := 0
	for _, ev := range evs {
		if _, ok := ev.(T); ok {
			n++
		}
	}
	return n
}

func send(t *testing.T, s runtimes.Session, prompt string) {
	t.Helper()
	if err := s.Send(claudetest.Context(t), runtimes.Turn{Prompt: prompt}); err != nil {
		t.Fatalf("send %q: %v", prompt, err)
	}
}

// gone reports whether no process of pid's group is left.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH)
}

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

// toolOnce answers the user's prompt with one tool call and, once the tool
// result comes back, with text quoting it.
func toolOnce(tool string, input any) fakeanthropic.Responder {
	return func(r fakeanthropic.Request) fakeanthropic.Reply {
		if res, ok := r.ToolResult(); ok {
			return fakeanthropic.Text("tool said: " + res.ResultText())
		}
		if !r.HasTool(tool) {
			return fakeanthropic.Echo(r)
		}
		return fakeanthropic.UseTool(tool, input)
	}
}

func lastToolResult(t *testing.T, fake *fakeanthropic.Server) fakeanthropic.Block {
	t.Helper()
	reqs := fake.MessageRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if b, ok := reqs[i].ToolResult(); ok {
			return b
		}
	}
	t.Fatal("the model never got a tool result")
	return fakeanthropic.Block{}
}

func TestLivePermissionAllowed(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(toolOnce("Bash", map[string]string{"command": "echo hi > f.txt", "description": "Write f.txt"}))
	s, evs := l.start(runtimes.StartRequest{PermissionMode: rpc.PermissionInteractive})
	send(t, s, "make f.txt")

	p := await(t, evs, func(p runtimes.PromptRequested) bool { return p.Permission != nil })
	if a := await(t, evs, func(a runtimes.ActivityChanged) bool { return a.Activity != rpc.ActivityThinking }); a.Activity != rpc.ActivityPermission {
		t.Errorf("activity while asking = %s", a.Activity)
	}
	perm := p.Permission
	if perm.Kind != rpc.PermBash || perm.ToolName != "Bash" || perm.Target != "echo hi > f.txt" ||
		perm.Description != "Write f.txt" || perm.Preview != "echo hi > f.txt" || len(perm.Options) != 3 {
		t.Errorf("permission = %+v", perm)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Allow}); err != nil {
		t.Fatal(err)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("second answer: %v, want ErrNoRequest", err)
	}
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn did not complete: %s", describe(evs.all()))
	}
	if b, err := os.ReadFile(filepath.Join(l.dir, "f.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("f.txt = %q, %v: the command did not run", b, err)
	}
	if res := lastToolResult(t, l.fake); res.IsError {
		t.Errorf("tool result is an error: %s", res.ResultText())
	}
}

func TestLivePermissionDenied(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(toolOnce("Write", map[string]string{"file_path": filepath.Join(l.dir, "denied.txt"), "content": "no\n"}))
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "write denied.txt")

	p := await(t, evs, func(p runtimes.PromptRequested) bool { return p.Permission != nil })
	if p.Permission.Kind != rpc.PermWrite || p.Permission.Preview != "no\n" {
		t.Errorf("permission = %+v", p.Permission)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
		t.Fatal(err)
	}
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn did not complete: %s", describe(evs.all()))
	}
	if _, err := os.Stat(filepath.Join(l.dir, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("denied.txt exists (%v)", err)
	}
	if res := lastToolResult(t, l.fake); !res.IsError || !strings.Contains(res.ResultText(), denyMessage) {
		t.Errorf("the model was not told of the denial: %+v %q", res, res.ResultText())
	}
}

func TestLivePermissionAllowAlways(t *testing.T) {
	l := newLive(t)
	s, evs := l.start(runtimes.StartRequest{})
	for i, name := range []string{"a.txt", "b.txt"} {
		l.fake.Respond(toolOnce("Bash", map[string]string{"command": "echo " + name + " > " + name}))
		send(t, s, "make "+name)
		if i == 0 {
			p := await(t, evs, func(p runtimes.PromptRequested) bool { return p.Permission != nil })
			if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.AllowAlways}); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
			t.Fatalf("turn %d did not complete: %s", i+1, describe(evs.all()))
		}
		if _, err := os.Stat(filepath.Join(l.dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := count[runtimes.PromptRequested](evs.all()); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
}

func TestLiveQuestionAnswered(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(toolOnce(askUserQuestion, map[string]any{"questions": []any{map[string]any{
		"question": "Which color?", "header": "Color", "multiSelect": false,
		"options": []any{
			map[string]string{"label": "red", "description": "warm"},
			map[string]string{"label": "blue", "description": "cold"},
		},
	}}}))
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "ask me")

	p := await(t, evs, func(p runtimes.PromptRequested) bool { return p.Question != nil })
	if a := await(t, evs, func(a runtimes.ActivityChanged) bool { return a.Activity != rpc.ActivityThinking }); a.Activity != rpc.ActivityQuestion {
		t.Errorf("activity while asking = %s", a.Activity)
	}
	q := p.Question.Questions
	if len(q) != 1 || q[0].Question != "Which color?" || q[0].Header != "Color" || len(q[0].Options) != 2 ||
		q[0].Options[1].Label != "blue" {
		t.Errorf("question = %+v", q)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Text: q[0].Options[1].Key}); err != nil {
		t.Fatal(err)
	}
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn did not complete: %s", describe(evs.all()))
	}
	if res := lastToolResult(t, l.fake); res.IsError || !strings.Contains(res.ResultText(), `"Which color?"="blue"`) {
		t.Errorf("the model did not get the answer: %q", res.ResultText())
	}
}

func TestLiveInterrupt(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(func(fakeanthropic.Request) fakeanthropic.Reply {
		return fakeanthropic.Slow(strings.Repeat("slow ", 300), 50*time.Millisecond)
	})
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "talk slowly")
	await[runtimes.MessageDelta](t, evs, nil)
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	failed, ok := terminal(t, evs).(runtimes.TurnFailed)
	if !ok || failed.Code != runtimes.CodeInterrupted {
		t.Fatalf("interrupted turn ended with %+v", failed)
	}

	// The process is still usable.
	l.fake.Respond(nil)
	send(t, s, "are you there?")
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("the turn after the interrupt did not complete: %s", describe(evs.all()))
	}
	all := evs.all()
	if n := count[runtimes.TurnCompleted](all) + count[runtimes.TurnFailed](all); n != 2 {
		t.Errorf("%d terminal events for two turns", n)
	}
}

func TestLiveCloseDuringSlowStream(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(func(fakeanthropic.Request) fakeanthropic.Reply {
		return fakeanthropic.Slow(strings.Repeat("slow ", 300), 50*time.Millisecond)
	})
	s, evs := l.start(runtimes.StartRequest{})
	pid := s.p.Pid()
	send(t, s, "talk slowly")
	await[runtimes.MessageDelta](t, evs, nil)

	closeSession(t, s)
	select {
	case <-s.Done():
	default:
		t.Error("Done is open after Close")
	}
	all := evs.all()
	if _, ok := all[len(all)-1].(runtimes.ProcessExited); !ok {
		t.Errorf("last event is %T, want ProcessExited", all[len(all)-1])
	}
	if n := count[runtimes.TurnFailed](all); n != 1 {
		t.Errorf("%d TurnFailed for the stopped turn, want 1", n)
	}
	if !gone(pid) {
		t.Errorf("process group %d is still alive", pid)
	}
	closeSession(t, s) // idempotent
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

func TestLiveYolo(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(toolOnce("Bash", map[string]string{"command": "echo yolo > y.txt"}))
	s, evs := l.start(runtimes.StartRequest{Yolo: true})
	send(t, s, "make y.txt")
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn did not complete: %s", describe(evs.all()))
	}
	if n := count[runtimes.PromptRequested](evs.all()); n != 0 {
		t.Errorf("asked %d times with permissions skipped", n)
	}
	if _, err := os.Stat(filepath.Join(l.dir, "y.txt")); err != nil {
		t.Error(err)
	}
}

func TestLiveDetect(t *testing.T) {
	l := newLive(t)
	av := l.adapter.Detect(context.Background())
	if !av.Usable() || av.Version != "2.1.197" || av.Path == "" {
		t.Errorf("detect = %+v", av)
	}
}

func TestLiveInterruptWhileAsking(t *testing.T) {
	l := newLive(t)
	l.fake.Respond(toolOnce("Bash", map[string]string{"command": "echo hi > f.txt"}))
	s, evs := l.start(runtimes.StartRequest{})
	send(t, s, "make f.txt")
	p := await(t, evs, func(p runtimes.PromptRequested) bool { return p.Permission != nil })
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The CLI withdraws its question, then ends the turn.
	if c := await[runtimes.PromptCancelled](t, evs, nil); c.RequestID != p.RequestID {
		t.Errorf("cancelled %q, want %q", c.RequestID, p.RequestID)
	}
	if failed, ok := terminal(t, evs).(runtimes.TurnFailed); !ok || failed.Code != runtimes.CodeInterrupted {
		t.Fatalf("turn ended with %+v", failed)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("answer after the cancel: %v, want ErrNoRequest", err)
	}
	if _, err := os.Stat(filepath.Join(l.dir, "f.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("f.txt exists (%v): the interrupted tool ran", err)
	}
}
