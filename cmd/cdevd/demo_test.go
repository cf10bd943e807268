package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/codex"
	"github.com/cdevd/cdevd/runtimes/gemini"
)

// demoProc is a running `cdevd serve --demo`.
type demoProc struct {
	cmd       *exec.Cmd
	stderr    *syncBuffer
	lines     []string // stdout up to the console line
	url       string
	root      string // the throwaway home
	workspace string
	home      string // the HOME cdevd itself was given: the demo must leave it empty
}

// startDemoServe runs this test binary as `cdevd serve --demo`, with the
// pinned CLIs found through their variables and a HOME and TMPDIR of the
// test's own, and reads what it prints up to the console line.
func startDemoServe(t *testing.T) *demoProc {
	t.Helper()
	p := &demoProc{home: t.TempDir(), stderr: &syncBuffer{}}
	p.cmd = exec.Command(os.Args[0], "serve", "--demo", "--log-format", "json")
	p.cmd.Env = []string{"CDEVD_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + p.home, "TMPDIR=" + t.TempDir(),
		"CDEVD_TOKEN=" + envToken,
		"CLAUDE_BIN=" + clitest.Bin(t, "CLAUDE_BIN", "claude"),
		"CODEX_BIN=" + clitest.Bin(t, "CODEX_BIN", "codex"),
		"GEMINI_BIN=" + clitest.Bin(t, "GEMINI_BIN", "gemini")}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		if t.Failed() {
			t.Logf("cdevd printed:\n%s\nlog:\n%s", strings.Join(p.lines, "\n"), p.stderr.String())
		}
	})
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			got = append(got, sc.Text())
			if strings.HasPrefix(sc.Text(), "console:") {
				break
			}
		}
		lines <- got
		for sc.Scan() { // keep the pipe drained
		}
	}()
	select {
	case p.lines = <-lines:
	case <-time.After(60 * time.Second):
		t.Fatalf("cdevd --demo printed no console line; log: %s", p.stderr.String())
	}
	out := strings.Join(p.lines, "\n")
	if len(p.lines) == 0 || p.lines[0] != demoBanner {
		t.Fatalf("first line is not the demo banner: %q", out)
	}
	p.url = regexp.MustCompile(`ws://127\.0\.0\.1:\d+/ws`).FindString(out)
	if m := regexp.MustCompile(`demo: throwaway home (\S+)`).FindStringSubmatch(out); m != nil {
		p.root = m[1]
	}
	if m := regexp.MustCompile(`demo: workspace (\S+)`).FindStringSubmatch(out); m != nil {
		p.workspace = m[1]
	}
	if p.url == "" || p.root == "" || p.workspace == "" {
		t.Fatalf("no URL, home or workspace in %q", out)
	}
	return p
}

// stop ends cdevd with SIGINT, as Ctrl-C does, and checks that the demo
// left nothing behind: its home removed, cdevd's own HOME untouched.
func (p *demoProc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("cdevd --demo after SIGINT: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("cdevd --demo did not exit after SIGINT")
	}
	if _, err := os.Stat(p.root); !os.IsNotExist(err) {
		t.Errorf("the demo's home %s is still there (%v)", p.root, err)
	}
	if left, _ := os.ReadDir(p.home); len(left) != 0 {
		t.Errorf("the demo wrote to HOME: %v", left)
	}
}

// `cdevd serve --demo` comes up labelled a demo, and a turn of Codex and
// of Gemini (Claude's runs in the console's browser test) asks permission
// for the demo's command, runs it once allowed, and answers with its
// output; a second turn streams the markdown answer.
func TestServeDemoTurns(t *testing.T) {
	p := startDemoServe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{URL: p.url, Token: envToken})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := c.Initialized().Capabilities.RuntimeRegistry
	if len(reg.Runtimes) != 3 {
		t.Errorf("registry %+v, want the three built-in runtimes", reg.Runtimes)
	}
	for _, r := range reg.Runtimes {
		if !strings.HasSuffix(r.DisplayName, demoSuffix) {
			t.Errorf("runtime %s: %q is not labelled a demo", r.ID, r.DisplayName)
		}
	}
	ws, err := c.WorkspaceList(ctx)
	if err != nil || len(ws) != 1 {
		t.Fatalf("workspaces %v, %v; want the demo's one", ws, err)
	}
	for _, agent := range []string{codex.ID, gemini.ID} {
		t.Run(agent, func(t *testing.T) { demoTurns(t, ctx, c, ws[0], agent) })
	}
	if b, err := os.ReadFile(filepath.Join(p.workspace, "hello.txt")); err != nil || !strings.Contains(string(b), "Hello from the cdevd demo") {
		t.Errorf("hello.txt = %q, %v: the allowed command did not run", b, err)
	}
	c.Close()
	p.stop(t)
}

func demoTurns(t *testing.T, ctx context.Context, c *client.Client, w rpc.Workspace, agent string) {
	t.Helper()
	res, err := c.SessionStart(ctx, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: agent})
	if err != nil {
		t.Fatal(err)
	}
	id := res.SessionID
	if _, err := c.SessionSend(ctx, rpc.SessionSendParams{SessionID: id, AgentType: agent, Prompt: "hello"}); err != nil {
		t.Fatal(err)
	}
	var texts []string
	deltas := 0
	// until reads id's events until done says so, keeping the messages' texts.
	until := func(what string, done func(client.Event) bool) client.Event {
		t.Helper()
		for {
			select {
			case ev, ok := <-c.Events():
				if !ok {
					t.Fatalf("events closed waiting for %s: %v", what, c.Err())
				}
				var h rpc.EventHeader
				if ev.Decode(&h) != nil || h.SessionID != id {
					continue
				}
				switch ev.Type() {
				case rpc.EventMessage:
					var m rpc.MessageEvent
					_ = ev.Decode(&m)
					for _, b := range m.Message.Content {
						texts = append(texts, b.Text+string(b.Content))
					}
				case rpc.EventMessageDelta:
					deltas++
				case rpc.EventError:
					t.Fatalf("error waiting for %s: %s", what, ev.Params)
				}
				if done(ev) {
					return ev
				}
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v; messages %q", what, ctx.Err(), texts)
			}
		}
	}
	is := func(typ string) func(client.Event) bool {
		return func(ev client.Event) bool { return ev.Type() == typ }
	}

	var perm rpc.PermissionEvent
	if err := until("the permission prompt", is(rpc.EventPermission)).Decode(&perm); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(perm.Target, "hello.txt") {
		t.Errorf("pty_permission target %q, want the demo's command", perm.Target)
	}
	if err := c.SessionRespond(ctx, rpc.SessionRespondParams{SessionID: id, AgentType: agent, Type: rpc.RespondPermission,
		RequestID: perm.RequestID, Response: "yes"}); err != nil {
		t.Fatal(err)
	}
	until("the first turn's end", is(rpc.EventTurnCompleted))
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "The command ran") || !strings.Contains(all, "hello.txt") {
		t.Errorf("no answer quoting the command's output (ls shows hello.txt) in %q", all)
	}

	texts, deltas = nil, 0
	if _, err := c.SessionSend(ctx, rpc.SessionSendParams{SessionID: id, AgentType: agent, Prompt: "what is this?"}); err != nil {
		t.Fatal(err)
	}
	until("the second turn's end", is(rpc.EventTurnCompleted))
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "**This is cdevd's demo.**") {
		t.Errorf("no markdown answer in %q", all)
	}
	if deltas < 5 {
		t.Errorf("%d message_delta: the answer did not stream", deltas)
	}

	// A command the user does not allow does not run, and the model says so.
	texts = nil
	if _, err := c.SessionSend(ctx, rpc.SessionSendParams{SessionID: id, AgentType: agent, Prompt: "run it again"}); err != nil {
		t.Fatal(err)
	}
	if err := until("the second permission prompt", is(rpc.EventPermission)).Decode(&perm); err != nil {
		t.Fatal(err)
	}
	if err := c.SessionRespond(ctx, rpc.SessionRespondParams{SessionID: id, AgentType: agent, Type: rpc.RespondPermission,
		RequestID: perm.RequestID, Response: "no"}); err != nil {
		t.Fatal(err)
	}
	until("the refused turn's end", is(rpc.EventTurnCompleted))
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "You did not allow the command") {
		t.Errorf("no answer saying the command was refused in %q", all)
	}
}

// The demo listens on loopback only.
func TestServeDemoRefusesAllowRemote(t *testing.T) {
	tmp := t.TempDir()
	_, errs, code := runCmd(t, map[string]string{"TMPDIR": tmp}, "serve", "--demo", "--allow-remote")
	if code != 1 || !strings.Contains(errs, "loopback only") {
		t.Errorf("serve --demo --allow-remote: exit %d, %q; want a refusal", code, errs)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
