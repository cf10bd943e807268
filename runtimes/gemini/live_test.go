package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

// A text turn with the real CLI: the prompt, then the streamed answer, both
// completed with the ids the chat file keeps before the turn ends; the
// stored history then holds exactly those messages (read-your-writes).
func TestTextTurn(t *testing.T) {
	e := newEnv(t)
	s, rec := e.start(t, runtimes.StartRequest{})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hello there"}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if got := text(evs); got != "echo: hello there" {
		t.Fatalf("streamed %q", got)
	}
	done, ok := evs[len(evs)-1].(runtimes.TurnCompleted)
	if !ok || done.StopReason != "end_turn" || done.Usage.InputTokens == 0 {
		t.Fatalf("turn ended %#v", evs[len(evs)-1])
	}
	// The prompt and the answer, as stored: the prompt before the first
	// delta of the answer.
	live := completed(evs)
	stored := e.stored(t, s.ID())
	if len(live) != 2 || len(stored) != 2 || stored[0].Message.Content[0].Text != "hello there" {
		t.Fatalf("live %+v\nstored %+v", live, stored)
	}
	for i := range live {
		if a, b := mustJSON(t, live[i]), mustJSON(t, stored[i]); a != b {
			t.Fatalf("live and stored message %d differ:\n%s\n%s", i, a, b)
		}
	}
	for _, ev := range evs {
		if _, ok := ev.(runtimes.MessageDelta); ok {
			t.Fatal("a delta came before the prompt")
		}
		if _, ok := ev.(runtimes.MessageCompleted); ok {
			break
		}
	}
	if e.a.Info().ID != "gemini" || !e.a.Detect(context.Background()).Usable() {
		t.Fatalf("detect: %+v", e.a.Detect(context.Background()))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Permissions in the default mode: allow runs the command, deny does not,
// always stops asking for the session; the prompt offers Gemini's options.
func TestPermission(t *testing.T) {
	e := newEnv(t)
	s, rec := e.start(t, runtimes.StartRequest{})
	ask := func(cmd string) runtimes.PromptRequested {
		t.Helper()
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: "RUN " + cmd}); err != nil {
			t.Fatal(err)
		}
		evs := rec.until(t, isPromptEvent)
		return evs[len(evs)-1].(runtimes.PromptRequested)
	}
	end := func() []runtimes.Event {
		t.Helper()
		evs := rec.until(t, isTurnEnd)
		if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
			t.Fatalf("turn ended %#v", evs[len(evs)-1])
		}
		return evs
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(e.dir, name))
		return err == nil
	}

	p := ask("touch allowed.txt")
	if p.Permission == nil || p.Permission.Kind != rpc.PermBash || p.Permission.Target != "touch allowed.txt" {
		t.Fatalf("prompt %+v", p.Permission)
	}
	var keys []string
	for _, o := range p.Permission.Options {
		keys = append(keys, o.Key)
	}
	if strings.Join(keys, ",") != "always,yes,no" {
		t.Fatalf("options %+v", p.Permission.Options)
	}
	if exists("allowed.txt") {
		t.Fatal("ran before it was allowed")
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Allow}); err != nil {
		t.Fatal(err)
	}
	evs := end()
	if !exists("allowed.txt") || text(evs) != "done" {
		t.Fatalf("after allow: file %v, answer %q", exists("allowed.txt"), text(evs))
	}
	hasResult := false
	for _, m := range completed(evs) {
		for _, b := range m.Message.Content {
			hasResult = hasResult || b.Type == rpc.BlockToolResult
		}
	}
	if !hasResult {
		t.Errorf("no tool result among %+v", completed(evs))
	}

	p = ask("touch denied.txt")
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
		t.Fatal(err)
	}
	if evs := end(); exists("denied.txt") || text(evs) != "refused" {
		t.Fatalf("after deny: file %v, answer %q", exists("denied.txt"), text(evs))
	}

	p = ask("touch always1.txt")
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: runtimes.AllowAlways}); err != nil {
		t.Fatal(err)
	}
	end()
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "RUN touch always2.txt"}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range end() {
		if isPromptEvent(ev) {
			t.Fatal("asked again after allow-always")
		}
	}
	if !exists("always1.txt") || !exists("always2.txt") {
		t.Fatal("always-allowed commands did not run")
	}
}

// bypassPermissions runs Gemini in yolo mode, in a folder the user trusts
// in Gemini: commands run unasked. Gemini refuses yolo in a folder it does
// not trust, and the start says so.
func TestBypassPermissions(t *testing.T) {
	e := newEnv(t)
	_, err := e.a.Start(context.Background(), runtimes.StartRequest{Dir: e.dir, PermissionMode: rpc.PermissionBypass}, nil)
	if err == nil || !strings.Contains(err.Error(), "untrusted folder") {
		t.Fatalf("yolo in an untrusted folder: %v", err)
	}
	trust, _ := json.Marshal(map[string]string{e.dir: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(geminitest.Home(e.cli), ".gemini", "trustedFolders.json"), trust, 0o600); err != nil {
		t.Fatal(err)
	}
	s, rec := e.start(t, runtimes.StartRequest{PermissionMode: rpc.PermissionBypass})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "RUN touch yolo.txt"}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range rec.until(t, isTurnEnd) {
		if isPromptEvent(ev) {
			t.Fatal("asked in bypassPermissions mode")
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "yolo.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.Start(context.Background(), runtimes.StartRequest{Dir: e.dir, PermissionMode: rpc.PermissionAcceptEdits}, nil); err == nil {
		t.Fatal("acceptEdits was accepted")
	}
}

// Cancel mid-stream ends the turn as interrupted with the partial answer;
// cancel during a pending permission answers it cancelled, withdraws it and
// ends the turn; the command never runs and the session goes on.
func TestCancel(t *testing.T) {
	e := newEnv(t)
	s, rec := e.start(t, runtimes.StartRequest{})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "SLOW"}); err != nil {
		t.Fatal(err)
	}
	rec.until(t, func(ev runtimes.Event) bool { _, ok := ev.(runtimes.MessageDelta); return ok })
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hi"}); !errors.Is(err, runtimes.ErrBusy) {
		t.Fatalf("send during a turn: %v", err)
	}
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if f, ok := evs[len(evs)-1].(runtimes.TurnFailed); !ok || f.Code != runtimes.CodeInterrupted {
		t.Fatalf("turn ended %#v", evs[len(evs)-1])
	}
	if len(completed(evs)) == 0 {
		t.Error("the partial answer was not completed")
	}

	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "RUN touch never.txt"}); err != nil {
		t.Fatal(err)
	}
	evs = rec.until(t, isPromptEvent)
	id := evs[len(evs)-1].(runtimes.PromptRequested).RequestID
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs = rec.until(t, isTurnEnd)
	withdrawn := false
	for _, ev := range evs {
		if c, ok := ev.(runtimes.PromptCancelled); ok && c.RequestID == id {
			withdrawn = true
		}
	}
	if !withdrawn {
		t.Fatalf("prompt not withdrawn: %#v", evs)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "never.txt")); err == nil {
		t.Fatal("the cancelled command ran")
	}
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "after"}); err != nil {
		t.Fatal(err)
	}
	if got := text(rec.until(t, isTurnEnd)); got != "echo: after" {
		t.Fatalf("after the cancels: %q", got)
	}
}

// Resume after the process group was killed: session/load in a new
// process, only once the minute of the session's chat file has passed
// (Gemini would otherwise write over it); the history is intact for the
// model and in the chat file, and no process is left.
func TestResumeAfterKill(t *testing.T) {
	mark := "CDEVD_GEMINI_TEST_MARK=" + t.Name() + time.Now().Format("150405.000000")
	e := newEnv(t, mark)
	s, rec := e.start(t, runtimes.StartRequest{})
	id := s.ID()
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "remember the word walnut"}); err != nil {
		t.Fatal(err)
	}
	rec.until(t, isTurnEnd)
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "RUN touch kept.txt"}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isPromptEvent)
	if err := s.Respond(context.Background(), evs[len(evs)-1].(runtimes.PromptRequested).RequestID, runtimes.Answer{Decision: runtimes.Allow}); err != nil {
		t.Fatal(err)
	}
	rec.until(t, isTurnEnd)
	pids := proctest.Marked(mark)
	if len(pids) == 0 {
		t.Fatal("no gemini process found")
	}
	for _, pid := range pids {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	rec.until(t, func(ev runtimes.Event) bool { _, ok := ev.(runtimes.ProcessExited); return ok })

	began := time.Now()
	r, rec2 := e.start(t, runtimes.StartRequest{SessionID: id, Resume: true})
	t.Logf("resumed after %v (the load waits for the minute to turn)", time.Since(began).Round(time.Millisecond))
	if r.ID() != id {
		t.Fatalf("resumed %s as %s", id, r.ID())
	}
	if err := r.Send(context.Background(), runtimes.Turn{Prompt: "which word?"}); err != nil {
		t.Fatal(err)
	}
	if got := text(rec2.until(t, isTurnEnd)); got != "echo: which word?" {
		t.Fatalf("after resume: %q", got)
	}
	reqs := e.api.GenerateRequests()
	if last := reqs[len(reqs)-1].Transcript(); !strings.Contains(last, "user: remember the word walnut") {
		t.Fatalf("the model did not get the history:\n%s", last)
	}
	var stored []string
	for _, m := range e.stored(t, id) {
		for _, b := range m.Message.Content {
			switch b.Type {
			case rpc.BlockText:
				stored = append(stored, string(m.Type)+": "+b.Text)
			case rpc.BlockToolUse:
				stored = append(stored, "tool: "+b.Name)
			}
		}
	}
	want := "user: remember the word walnut|assistant: echo: remember the word walnut|user: RUN touch kept.txt|" +
		"tool: run_shell_command|assistant: done|user: which word?|assistant: echo: which word?"
	if got := strings.Join(stored, "|"); got != want {
		t.Fatalf("stored after resume:\n%q\nwant\n%q", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := proctest.Marked(mark); len(left) > 0 {
		t.Fatalf("processes left: %v", left)
	}
}

// A model asked for is the one the CLI calls (-m).
func TestModel(t *testing.T) {
	e := newEnv(t)
	s, rec := e.start(t, runtimes.StartRequest{Model: "gemini-2.5-pro"})
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	rec.until(t, isTurnEnd)
	reqs := e.api.GenerateRequests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Model != "gemini-2.5-pro" {
		t.Fatalf("the CLI called %+v", reqs)
	}
}
