package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/contracttests"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// serveProc is `cdevd serve` running as a process of its own (this test
// binary, re-executed as the command).
type serveProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
}

// syncBuffer is the daemon's log, written by exec's copying goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe starts cdevd with env as its whole environment and waits for the
// URL it prints.
func startServe(t *testing.T, env []string, ws string) *serveProc {
	t.Helper()
	return startServeIn(t, "", env, ws)
}

// startServeIn is startServe with cdevd started in the directory dir.
func startServeIn(t *testing.T, dir string, env []string, ws string) *serveProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--workspace", ws, "--log-format", "json", "--log-level", "debug")
	cmd.Env = append(env, "CDEVD_TEST_MAIN=1")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &serveProc{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("cdevd log:\n%s", s.stderr.String())
		}
	})
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		first <- sc.Text()
		for sc.Scan() { // keep the pipe drained
		}
	}()
	select {
	case l := <-first:
		if s.url = regexp.MustCompile(`ws://127\.0\.0\.1:\d+/ws`).FindString(l); s.url == "" {
			t.Fatalf("first line has no ws:// URL: %q; log: %s", l, s.stderr.String())
		}
	case <-time.After(claudetest.Timeout):
		t.Fatalf("cdevd printed no URL; log: %s", s.stderr.String())
	}
	return s
}

// end sends sig and waits for cdevd to exit.
func (s *serveProc) end(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if sig == syscall.SIGTERM && err != nil {
			t.Errorf("cdevd after SIGTERM: %v", err)
		}
	case <-time.After(claudetest.Timeout):
		t.Fatalf("cdevd did not exit after %v", sig)
	}
}

var marked = proctest.Marked

// describe names processes for a failure message.
func describe(pids []int) string {
	var b strings.Builder
	for _, p := range pids {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		fmt.Fprintf(&b, "\n  %d %s", p, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	}
	return b.String()
}

// SIGKILL (or SIGTERM) of cdevd in the middle of a turn of the real Claude
// CLI leaves no process it started, at any depth; after a restart on the
// same CDEVD_HOME and HOME the session is in the history with what was
// written, and session/send resumes it under the same id.
func TestDaemonDeathMidTurnWithRealClaude(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { daemonDeathMidTurn(t, sig) })
	}
}

func daemonDeathMidTurn(t *testing.T, sig syscall.Signal) {
	fake := fakeanthropic.New(t)
	// The second turn starts a command in the background (a process of
	// the CLI's own, outside its process group: the CLI may setsid it),
	// then streams its answer slowly.
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		if !req.HasTool("Bash") || req.LastUserText() != "talk slowly" {
			return fakeanthropic.Echo(req)
		}
		if _, ok := req.ToolResult(); !ok {
			return fakeanthropic.UseTool("Bash", map[string]any{"command": "sleep 300", "run_in_background": true,
				"description": "wait in the background"})
		}
		return fakeanthropic.Slow(strings.Repeat("slow ", 300), 50*time.Millisecond)
	})
	mark := "CDEVD_TEST_TREE=" + rand.Text()
	env := append(claudetest.Env(t, fake.URL()),
		"CDEVD_HOME="+t.TempDir(), "CDEVD_TOKEN=crash-test-token-0123456789abcdef0123", "CLAUDE_BIN="+claudetest.Bin(t),
		"GORACE=atexit_sleep_ms=0", mark)
	t.Cleanup(func() {
		for _, p := range marked(mark) { // only after a failure
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := claudetest.Context(t)

	first := startServe(t, env, ws)
	c, _ := contracttests.Connect(t, ctx, first.url, "crash-test-token-0123456789abcdef0123")
	var list rpc.WorkspaceListResult
	c.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, &list)
	if len(list.Workspaces) != 1 {
		t.Fatalf("workspaces: %+v", list.Workspaces)
	}
	w := list.Workspaces[0]
	// A first turn completes and is stored: on a first turn the CLI may
	// not have created its transcript yet.
	var sent rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: w.ID, Mode: rpc.SendNew,
		AgentType: claude.ID, Prompt: "hello", PermissionMode: rpc.PermissionBypass}, &sent)
	id := sent.SessionID
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventTurnCompleted, id)); err != nil {
		t.Fatal(err)
	}
	said := func(c *contracttests.Client) []string {
		var m rpc.MessagesResult
		c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: claude.ID, Limit: 500}, &m)
		var out []string
		for _, msg := range m.Messages {
			var text strings.Builder
			for _, b := range msg.Message.Content {
				text.WriteString(b.Text)
			}
			if text.Len() > 0 {
				out = append(out, string(msg.Type)+": "+text.String())
			}
		}
		return out
	}
	if !poll(ctx, func() bool { return slices.Contains(said(c), "assistant: echo: hello") }) {
		t.Fatalf("the first turn was never stored: %q", said(c))
	}

	// The second turn streams slowly; cdevd dies in its middle.
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, AgentType: claude.ID, Prompt: "talk slowly"}, &sent)
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventMessageDelta, id)); err != nil {
		t.Fatal(err)
	}
	var tree []int
	sleeping := func() bool {
		tree = marked(mark)
		return strings.Contains(describe(tree), " sleep 300")
	}
	if !poll(ctx, sleeping) || !slices.Contains(tree, first.cmd.Process.Pid) {
		t.Fatalf("no background command among the marked processes:%s", describe(tree))
	}
	t.Logf("cdevd and what it started:%s", describe(tree))
	c.Close()
	first.end(t, sig)
	var left []int
	if !poll(ctx, func() bool { left = marked(mark); return len(left) == 0 }) {
		t.Fatalf("still running after cdevd's %v:%s", sig, describe(left))
	}

	second := startServe(t, env, ws)
	c, _ = contracttests.Connect(t, ctx, second.url, "crash-test-token-0123456789abcdef0123")
	var h rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: claude.ID}, &h)
	if len(h.Sessions) != 1 || h.Sessions[0].SessionID != id || h.Sessions[0].Status != rpc.StatusHistorical {
		t.Fatalf("history after the restart: %+v", h.Sessions)
	}
	if got := said(c); len(got) < 2 || got[0] != "user: hello" || got[1] != "assistant: echo: hello" {
		t.Fatalf("messages after the restart: %q", got)
	}
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, WorkspaceID: w.ID, AgentType: claude.ID, Prompt: "again"}, &sent)
	if sent.SessionID != id {
		t.Fatalf("send resumed %s, want %s", sent.SessionID, id)
	}
	// Resumed after its background command was killed, the CLI first
	// reports that command's end as a turn of its own (a result with no
	// model call); the prompt's turn still completes once, after its answer.
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventTurnCompleted, id)); err != nil {
		t.Fatalf("the resumed turn did not complete: %v", err)
	}
	evs := c.SessionEvents(id)
	end := slices.IndexFunc(evs, func(n contracttests.Notification) bool { return n.Type() == rpc.EventTurnCompleted })
	answer := slices.IndexFunc(evs, func(n contracttests.Notification) bool {
		return n.Type() == rpc.EventMessage && strings.Contains(string(n.Params), `"echo: again"`)
	})
	if answer < 0 || answer > end {
		t.Fatalf("turn_completed came before the answer (at %d, the answer at %d)", end, answer)
	}
	reqs := fake.MessageRequests()
	i := slices.IndexFunc(reqs, func(r fakeanthropic.Request) bool { return r.LastUserText() == "again" })
	if i < 0 || !strings.Contains(reqs[i].Transcript(), "user: hello\n") || !strings.Contains(reqs[i].Transcript(), "assistant: echo: hello\n") {
		t.Errorf("the resumed model did not see the first turn (request %d of %d)", i, len(reqs))
	}
	if !poll(ctx, func() bool { return slices.Contains(said(c), "assistant: echo: again") }) {
		t.Errorf("the resumed turn was never stored: %q", said(c))
	}
	c.Close()
	second.end(t, syscall.SIGTERM)
	if !poll(ctx, func() bool { left = marked(mark); return len(left) == 0 }) {
		t.Fatalf("still running after the second cdevd's SIGTERM:%s", describe(left))
	}
}

// poll checks cond until it holds or ctx ends, and says whether it held.
func poll(ctx context.Context, cond func() bool) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}
