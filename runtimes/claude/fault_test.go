package claude

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/runtimes"
)

// These tests run the test binary as a fake CLI (see fakeCLI in main_test.go).

func fakeAdapter(t *testing.T, mode string, stall time.Duration) *Adapter {
	return New(Config{
		Bin:          os.Args[0],
		Env:          []string{fakeCLIEnv + "=" + mode, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")},
		StallTimeout: stall,
		KillGrace:    time.Second,
		Logger:       zaptest.NewLogger(t),
	})
}

func startFake(t *testing.T, a *Adapter) (*session, *events) {
	t.Helper()
	evs := newEvents()
	s, err := a.Start(context.Background(), runtimes.StartRequest{Dir: t.TempDir()}, evs.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	return s.(*session), evs
}

// ended checks how a session whose turn failed ended: one terminal event,
// ProcessExited last, the process group gone, Send refused.
func ended(t *testing.T, s *session, evs *events, code string) runtimes.TurnFailed {
	t.Helper()
	failed, ok := terminal(t, evs).(runtimes.TurnFailed)
	if !ok || failed.Code != code {
		t.Fatalf("turn ended with %+v, want TurnFailed %s", failed, code)
	}
	exited := await[runtimes.ProcessExited](t, evs, nil)
	<-s.Done()
	all := evs.all()
	if all[len(all)-1] != runtimes.Event(exited) {
		t.Errorf("ProcessExited is not last: %s", describe(all))
	}
	if n := count[runtimes.TurnCompleted](all) + count[runtimes.TurnFailed](all); n != 1 {
		t.Errorf("%d terminal events: %s", n, describe(all))
	}
	if !gone(s.p.Pid()) {
		t.Errorf("process group %d is still alive", s.p.Pid())
	}
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "more"}); !errors.Is(err, runtimes.ErrExited) {
		t.Errorf("send after exit: %v, want ErrExited", err)
	}
	return failed
}

func TestFakeGarbageIsIgnored(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "garbage", 0))
	send(t, s, "hi")
	msg := await[runtimes.MessageCompleted](t, evs, nil)
	done, ok := terminal(t, evs).(runtimes.TurnCompleted)
	if !ok {
		t.Fatalf("turn did not complete: %s", describe(evs.all()))
	}
	if msg.Message.Message.Content[0].Text != "fine" || done.CostUSD == nil || *done.CostUSD != 0.25 {
		t.Errorf("message %+v, turn %+v", msg.Message, done)
	}
}

func TestFakeHugeLineFailsTurn(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "bigline", 0))
	send(t, s, "hi")
	ended(t, s, evs, runtimes.CodeOutputTooLarge)
}

func TestFakeCrashFailsTurn(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "crash", 0))
	send(t, s, "hi")
	failed := ended(t, s, evs, runtimes.CodeCLIExited)
	if !strings.Contains(failed.Message, "code 3") {
		t.Errorf("message %q lacks the exit code", failed.Message)
	}
	if s.p.ExitCode() != 3 {
		t.Errorf("exit code %d", s.p.ExitCode())
	}
}

func TestFakeStallFailsTurn(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "hang", 300*time.Millisecond))
	send(t, s, "hi")
	ended(t, s, evs, runtimes.CodeStallTimeout)
}

func TestFakeExitCancelsPrompt(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "ask", 0))
	send(t, s, "hi")
	p := await(t, evs, func(p runtimes.PromptRequested) bool { return p.Permission != nil })
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: "maybe"}); err == nil {
		t.Error("an answer that is no decision was accepted")
	}
	if err := s.Respond(context.Background(), "other", runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("answer to an unknown request: %v, want ErrNoRequest", err)
	}
	closeSession(t, s)
	cancelled := await[runtimes.PromptCancelled](t, evs, nil)
	if cancelled.RequestID != p.RequestID {
		t.Errorf("cancelled %q, want %q", cancelled.RequestID, p.RequestID)
	}
	failed, ok := terminal(t, evs).(runtimes.TurnFailed)
	if !ok || failed.Code != runtimes.CodeCLIExited {
		t.Errorf("turn ended with %+v", failed)
	}
	if exited := await[runtimes.ProcessExited](t, evs, nil); exited.Reason != "stopped" {
		t.Errorf("exit reason %q", exited.Reason)
	}
}

func TestDetect(t *testing.T) {
	if av := fakeAdapter(t, "garbage", 0).Detect(context.Background()); !av.Usable() || av.Version != "9.9.9" {
		t.Errorf("working CLI: %+v", av)
	}
	av := fakeAdapter(t, "badversion", 0).Detect(context.Background())
	if !av.Installed || av.Usable() || !strings.Contains(av.Reason, "no license") {
		t.Errorf("failing CLI: %+v", av)
	}
	missing := New(Config{Bin: "claude-does-not-exist", Env: []string{"PATH=" + t.TempDir()}})
	if av := missing.Detect(context.Background()); av.Installed || av.Reason != "claude not found on PATH (set CLAUDE_BIN)" {
		t.Errorf("missing CLI: %+v", av)
	}
}

func TestStartRejects(t *testing.T) {
	a := fakeAdapter(t, "garbage", 0)
	for name, req := range map[string]runtimes.StartRequest{
		"no dir":      {},
		"not a uuid":  {Dir: t.TempDir(), SessionID: "abc"},
		"bad mode":    {Dir: t.TempDir(), PermissionMode: "sometimes"},
		"resume none": {Dir: t.TempDir(), SessionID: "0b6f3b8e-5d0c-4f4e-9c43-3f0d2f6b9a11", Resume: true},
	} {
		if s, err := a.Start(context.Background(), req, nil); err == nil {
			closeSession(t, s)
			t.Errorf("%s: started", name)
		}
	}
}
