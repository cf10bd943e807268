package claude

// The real CLI during a turn: permissions (allowed, denied, always, or
// skipped with yolo), a question, interrupts, close during a slow stream.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

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
