package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/contracttests"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
)

// Declared ACP agents, as a user writes them in config.toml, are runtimes
// of a real `cdevd serve`: one found is usable end to end, with honest
// flags (no history, preview); one whose command is missing is disabled
// with the reason. A mistake in the file stops serve, naming the line.
func TestDeclaredACPAgents(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	var env []string
	for _, kv := range acpfake.Env(acpfake.Options{Name: "fake-agent", Version: "2.3.4"}) {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, fmt.Sprintf("%s = %s", k, strconv.Quote(v)))
	}
	conf := fmt.Sprintf(`
[[acp_agent]]
id = "fakeacp"
name = "Fake ACP agent"
command = %q
env = { %s }

[[acp_agent]]
id = "ghost"
command = "/nonexistent/ghost-agent"
args = ["--acp"]
`, os.Args[0], strings.Join(env, ", "))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	url, stop := serveFor(t, home, ws)
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, init := contracttests.Connect(t, ctx, url, envToken)
	defer c.Close()
	byID := map[string]rpc.Runtime{}
	for _, r := range init.Capabilities.RuntimeRegistry.Runtimes {
		byID[r.ID] = r
	}
	fake, ghost := byID["fakeacp"], byID["ghost"]
	if fake.Status != rpc.RuntimePreview || fake.DisplayName != "Fake ACP agent" || fake.SupportsHistory ||
		fake.SupportsResume || !fake.SupportsPermissions || fake.SupportsInteractiveQuestions || fake.Availability.Version != "2.3.4" {
		t.Errorf("declared agent's record: %+v", fake)
	}
	if ghost.Status != rpc.RuntimeDisabled || !strings.Contains(ghost.Availability.Reason, "ghost-agent") ||
		!strings.Contains(ghost.Availability.Reason, "config.toml") {
		t.Errorf("missing agent's record: %+v", ghost)
	}

	var list rpc.WorkspaceListResult
	c.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, &list)
	var started rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: list.Workspaces[0].ID, AgentType: "fakeacp"}, &started)
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: started.SessionID, Prompt: "hello"}, nil)
	isMsg := contracttests.Event(rpc.EventMessage, started.SessionID)
	if _, err := c.Await(ctx, func(n contracttests.Notification) bool {
		return isMsg(n) && n.Field("type") == "assistant" && strings.Contains(n.String(), "echo: hello")
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventTurnCompleted, started.SessionID)); err != nil {
		t.Fatal(err)
	}
	if _, rerr := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: list.Workspaces[0].ID, AgentType: "ghost"}); rerr == nil ||
		!strings.Contains(fmt.Sprint(rerr.Data), "ghost-agent") {
		t.Fatalf("start on the missing agent: %+v", rerr)
	}
	if _, rerr := c.Call(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: list.Workspaces[0].ID, AgentType: "fakeacp"}); rerr == nil {
		t.Fatal("history of an agent cdevd cannot read succeeded")
	}

	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[[acp_agent]]\nid = \"x\"\ncomand = \"y\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCmd(t, map[string]string{"CDEVD_HOME": home}, "serve", "--addr", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errs, "config.toml:3") || !strings.Contains(errs, "comand") {
		t.Fatalf("serve with a typo in config.toml: exit %d, %q", code, errs)
	}
}

// serveFor runs `cdevd serve` with home and one workspace, and returns its
// URL and a stop function that ends it with SIGTERM.
func serveFor(t *testing.T, home, ws string) (string, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--workspace", ws, "--log-format", "json")
	cmd.Env = append(os.Environ(), "CDEVD_TEST_MAIN=1", "CDEVD_HOME="+home, "CDEVD_TOKEN="+envToken,
		"CLAUDE_BIN=/nonexistent/claude", "CODEX_BIN=/nonexistent/codex", "GEMINI_BIN=/nonexistent/gemini")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("no output; stderr: %s", stderr.String())
	}
	url := regexp.MustCompile(`ws://127\.0\.0\.1:\d+/ws`).FindString(lines.Text())
	go func() {
		for lines.Scan() {
		}
	}()
	return url, func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve exited: %v; stderr: %s", err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Error("serve did not exit")
		}
	}
}
