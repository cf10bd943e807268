package codex

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// These tests run the test binary as a fake app-server (see fakeCLI in
// main_test.go), for the faults the real CLI cannot be made to show.

func fakeAdapter(t *testing.T, mode string, stall time.Duration) *Adapter {
	return New(Config{
		Bin:          os.Args[0],
		Env:          []string{fakeCLIEnv + "=" + mode, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0"},
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
	if s.ID() != fakeThread {
		t.Fatalf("session id %q", s.ID())
	}
	return s.(*session), evs
}

// ended checks how a session whose turn failed ended: one terminal event,
// ProcessExited last, the process group gone, Send refused.
func ended(t *testing.T, s *session, evs *events, code string) runtimes.TurnFailed {
	t.Helper()
	failed, ok := terminalFrom(t, evs, 0).(runtimes.TurnFailed)
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

func TestFakeGarbageIsSkipped(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "garbage", 0))
	send(t, s, "hi")
	done, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted)
	if !ok || done.Usage != (rpc.Usage{InputTokens: 3, OutputTokens: 1}) || done.DurationMS != 5 {
		t.Fatalf("turn: %s", describe(evs.all()))
	}
	msg := await[runtimes.MessageCompleted](t, evs, nil)
	if msg.Message.ID != "msg_1" || msg.Message.Message.Content[0].Text != "fine" {
		t.Errorf("message %+v", msg.Message)
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
}

func TestFakeStallFailsTurn(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "hang", 300*time.Millisecond))
	send(t, s, "hi")
	ended(t, s, evs, runtimes.CodeStallTimeout)
}

func TestDetect(t *testing.T) {
	if av := fakeAdapter(t, "garbage", 0).Detect(context.Background()); !av.Usable() || av.Version != "9.9.9" {
		t.Errorf("working CLI: %+v", av)
	}
	av := fakeAdapter(t, "badversion", 0).Detect(context.Background())
	if !av.Installed || av.Usable() || !strings.Contains(av.Reason, "no license") {
		t.Errorf("failing CLI: %+v", av)
	}
	missing := New(Config{Bin: "codex-does-not-exist", Env: []string{"PATH=" + t.TempDir()}})
	if av := missing.Detect(context.Background()); av.Installed || av.Reason != "codex not found on PATH (set CODEX_BIN)" {
		t.Errorf("missing CLI: %+v", av)
	}
}

func TestStartRejects(t *testing.T) {
	a := fakeAdapter(t, "garbage", 0)
	for name, req := range map[string]runtimes.StartRequest{
		"no dir":        {},
		"client id":     {Dir: t.TempDir(), SessionID: "0b6f3b8e-5d0c-4f4e-9c43-3f0d2f6b9a11"},
		"bad resume id": {Dir: t.TempDir(), SessionID: "../x", Resume: true},
		"acceptEdits":   {Dir: t.TempDir(), PermissionMode: rpc.PermissionAcceptEdits},
		"unknown mode":  {Dir: t.TempDir(), PermissionMode: "sometimes"},
		"empty resume":  {Dir: t.TempDir(), Resume: true},
	} {
		if s, err := a.Start(context.Background(), req, nil); err == nil {
			closeSession(t, s)
			t.Errorf("%s: started", name)
		}
	}
	for _, m := range []rpc.PermissionMode{"", rpc.PermissionDefault, rpc.PermissionBypass, rpc.PermissionPlan, rpc.PermissionInteractive} {
		if !a.Info().AcceptsPermissionMode(m) {
			t.Errorf("mode %q not advertised", m)
		}
	}
	if a.Info().AcceptsPermissionMode(rpc.PermissionAcceptEdits) || a.Info().ClientIDs {
		t.Errorf("info %+v", a.Info())
	}
}

func TestConfigDefaults(t *testing.T) {
	a := New(Config{Env: []string{"HOME=/h", "CODEX_BIN=/opt/codex"}})
	if a.cfg.Bin != "/opt/codex" || a.cfg.Home != "/h/.codex" {
		t.Errorf("cfg %+v", a.cfg)
	}
	a = New(Config{Env: []string{"HOME=/h", "CODEX_HOME=/elsewhere"}})
	if a.cfg.Bin != "codex" || a.cfg.Home != "/elsewhere" {
		t.Errorf("cfg %+v", a.cfg)
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`/bin/bash -lc 'touch made_by_codex.txt'`: {"/bin/bash", "-lc", "touch made_by_codex.txt"},
		`/bin/bash -lc 'echo '"'"'hi'"'"''`:       {"/bin/bash", "-lc", "echo 'hi'"},
		`/bin/bash -lc "a \"b\" \$c"`:             {"/bin/bash", "-lc", `a "b" $c`},
		`ls a\ b  c`:                              {"ls", "a b", "c"},
		`''`:                                      {""},
		`x 'open`:                                 {"x", "open"},
	} {
		if got := splitCommand(in); strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("splitCommand(%q) = %q, want %q", in, got, want)
		}
	}
}

// A send right after a turn failed on Codex's final error notification,
// before Codex's turn/completed of that turn: Codex would merge the new
// turn/start into the dying turn, and the new turn would never end. cdevd
// waits for Codex to end the turn first, and the new turn completes.
func TestSendAfterFailureWaitsForCodexTurnEnd(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "lateend", time.Minute))
	send(t, s, "first")
	if f, ok := terminalFrom(t, evs, 0).(runtimes.TurnFailed); !ok || f.Code != runtimes.CodeServerError {
		t.Fatalf("first turn: %s", describe(evs.all()))
	}
	from := evs.len()
	send(t, s, "second") // at once: Codex still runs the first turn
	if _, ok := terminalFrom(t, evs, from).(runtimes.TurnCompleted); !ok {
		t.Fatalf("second turn: %s", describe(evs.since(from)))
	}
}
