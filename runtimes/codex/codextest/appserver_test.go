package codextest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// msg is one line of codex app-server's newline-delimited JSON-RPC: a reply
// (ID with Result or Error), a notification (Method) or a server request
// (both).
type msg struct {
	ID     *int64          `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	raw    []byte
	at     time.Time
}

// appServer is a hand-written peer: just enough JSON-RPC to drive one thread.
type appServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan msg
	stderr bytes.Buffer
	nextID int64
	exited chan error // Wait's result, once the process is gone
	gone   bool       // exited has been received
}

// waitExit discards what is left on stdout until the process has exited, or
// the deadline passes (ok false).
func (a *appServer) waitExit(deadline time.Time) (err error, ok bool) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	lines := a.lines
	for {
		select {
		case _, open := <-lines:
			if !open {
				lines = nil
			}
		case err := <-a.exited:
			a.gone = true
			return err, true
		case <-timer.C:
			return nil, false
		}
	}
}

func startAppServer(t *testing.T, env []string, dir string) *appServer {
	t.Helper()
	a := &appServer{t: t, lines: make(chan msg, 1024), exited: make(chan error, 1)}
	a.cmd = exec.Command(Bin(t), "app-server")
	a.cmd.Env, a.cmd.Dir = env, dir
	// Its own process group, so that cleanup reaches the native binary the
	// Node shim spawns (killing the shim alone orphans it).
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	a.cmd.Stderr = &a.stderr
	a.cmd.WaitDelay = 5 * time.Second
	var err error
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		// Wait only once stdout is drained, as StdoutPipe requires.
		defer func() { a.exited <- a.cmd.Wait() }()
		defer close(a.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			m := msg{raw: append([]byte(nil), sc.Bytes()...), at: time.Now()}
			if err := json.Unmarshal(m.raw, &m); err != nil {
				m.Method = "!garbage"
			}
			a.lines <- m
		}
	}()
	t.Cleanup(func() {
		if !a.gone {
			// A test that failed early leaves the process running: end the group.
			_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
			if _, ok := a.waitExit(time.Now().Add(10 * time.Second)); !ok {
				t.Errorf("app-server survived SIGKILL of its group")
			}
		}
		if t.Failed() {
			t.Logf("app-server stderr:\n%s", a.stderr.String())
		}
	})
	return a
}

func (a *appServer) send(v any) {
	a.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.stdin.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("write %s: %v", b, err)
	}
}

// request sends a request and returns its id.
func (a *appServer) request(method string, params any) int64 {
	a.t.Helper()
	a.nextID++
	a.send(map[string]any{"id": a.nextID, "method": method, "params": params})
	return a.nextID
}

// await reads until a message matches, failing at the deadline or when
// stdout ends; the messages read on the way are returned too.
func (a *appServer) await(deadline time.Time, what string, match func(msg) bool) (msg, []msg) {
	a.t.Helper()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var seen []msg
	for {
		select {
		case m, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("stdout ended waiting for %s; saw %d messages", what, len(seen))
			}
			if m.Method == "!garbage" {
				a.t.Fatalf("not JSON on stdout: %q", m.raw)
			}
			seen = append(seen, m)
			if match(m) {
				return m, seen
			}
		case <-timer.C:
			var names []string
			for _, m := range seen {
				names = append(names, m.Method)
			}
			a.t.Fatalf("no %s before the deadline; saw %v", what, names)
		}
	}
}

func (a *appServer) reply(deadline time.Time, id int64) msg {
	a.t.Helper()
	m, _ := a.await(deadline, fmt.Sprintf("reply to %d", id), func(m msg) bool {
		return m.ID != nil && *m.ID == id && m.Method == ""
	})
	if m.Error != nil {
		a.t.Fatalf("request %d failed: %s", id, m.Error)
	}
	return m
}

func isMethod(name string) func(msg) bool { return func(m msg) bool { return m.Method == name } }

// TestAppServerTextTurn drives the real `codex app-server` by hand against
// the fake: handshake, a thread, a text turn with deltas, the rollout on
// disk, and stdin EOF ending every process.
func TestAppServerTextTurn(t *testing.T) {
	api := fakeopenai.New(t)
	api.Respond(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Text("Hello from the fake.") })
	env := Env(t, api.BaseURL())
	ws := t.TempDir()
	deadline := time.Now().Add(Timeout)

	spawned := time.Now()
	a := startAppServer(t, env, ws)
	id := a.request("initialize", map[string]any{"clientInfo": map[string]string{"name": "cdevd", "title": "cdevd", "version": "0"}})
	init := a.reply(deadline, id)
	t.Logf("spawn → initialize reply: %v", init.at.Sub(spawned))
	var initRes struct {
		CodexHome string `json:"codexHome"`
		UserAgent string `json:"userAgent"`
	}
	if err := json.Unmarshal(init.Result, &initRes); err != nil || initRes.CodexHome != filepath.Join(Home(env), ".codex") {
		t.Fatalf("initialize result %s (%v): codexHome is not $HOME/.codex", init.Result, err)
	}
	a.send(map[string]any{"method": "initialized"})

	id = a.request("thread/start", map[string]any{"cwd": ws, "approvalPolicy": "never", "sandbox": "read-only"})
	var started struct {
		Thread struct {
			ID   string `json:"id"`
			Path string `json:"path"`
			Cwd  string `json:"cwd"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(a.reply(deadline, id).Result, &started); err != nil || started.Thread.ID == "" {
		t.Fatalf("thread/start: %v %+v", err, started)
	}
	thread := started.Thread.ID

	prompted := time.Now()
	id = a.request("turn/start", map[string]any{"threadId": thread,
		"input": []map[string]string{{"type": "text", "text": "hi"}}})
	a.reply(deadline, id)
	first, _ := a.await(deadline, "item/agentMessage/delta", isMethod("item/agentMessage/delta"))
	t.Logf("prompt → first delta: %v", first.at.Sub(prompted))
	deltas := []msg{first}
	done, seen := a.await(deadline, "turn/completed", isMethod("turn/completed"))
	t.Logf("prompt → turn/completed: %v", done.at.Sub(prompted))

	var text strings.Builder
	var completedText string
	for _, m := range append(deltas, seen...) {
		var p struct {
			ThreadID string `json:"threadId"`
			Delta    string `json:"delta"`
			Item     struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		_ = json.Unmarshal(m.Params, &p)
		switch {
		case m.Method == "item/agentMessage/delta":
			if p.ThreadID != thread {
				t.Errorf("delta for thread %q", p.ThreadID)
			}
			text.WriteString(p.Delta)
		case m.Method == "item/completed" && p.Item.Type == "agentMessage":
			completedText = p.Item.Text
		}
	}
	if text.String() != "Hello from the fake." || completedText != "Hello from the fake." {
		t.Errorf("deltas %q, completed agentMessage %q", text.String(), completedText)
	}
	var turn struct {
		Turn struct{ Status string } `json:"turn"`
	}
	if json.Unmarshal(done.Params, &turn); turn.Turn.Status != "completed" {
		t.Errorf("turn/completed %s", done.Params)
	}

	// The rollout is under the reported codexHome, in UTC date directories.
	matches, _ := filepath.Glob(filepath.Join(initRes.CodexHome, "sessions", "*", "*", "*", "rollout-*-"+thread+".jsonl"))
	if len(matches) != 1 || matches[0] != started.Thread.Path {
		t.Fatalf("rollouts %v, thread/start said %q", matches, started.Thread.Path)
	}
	dateDir, _ := filepath.Rel(filepath.Join(initRes.CodexHome, "sessions"), filepath.Dir(matches[0]))
	if day, err := time.Parse("2006/01/02", dateDir); err != nil || time.Since(day) > 48*time.Hour || time.Since(day) < -24*time.Hour {
		t.Errorf("rollout date directory %q (%v)", dateDir, err)
	}
	if b, err := os.ReadFile(matches[0]); err != nil || !bytes.Contains(b, []byte("Hello from the fake.")) {
		t.Errorf("rollout lacks the answer at turn/completed (%v)", err)
	}

	if reqs := api.ResponseRequests(); len(reqs) != 1 || reqs[0].LastUserText() != "hi" ||
		reqs[0].Header.Get("Authorization") != "Bearer "+APIKey {
		t.Errorf("model requests %+v", reqs)
	}
	if u := api.Unexpected(); len(u) != 0 {
		t.Errorf("unexpected requests to the fake: %+v", u)
	}

	// Closing stdin ends the shim and the native binary it spawned.
	pgid := a.cmd.Process.Pid
	closed := time.Now()
	a.stdin.Close()
	if err, ok := a.waitExit(deadline); !ok {
		t.Fatal("app-server still running after stdin EOF")
	} else if err != nil {
		t.Errorf("app-server exit after stdin EOF: %v", err)
	}
	t.Logf("stdin EOF → exit: %v", time.Since(closed))
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("processes left in the group after exit: kill(-%d, 0) = %v", pgid, err)
	}
}

// startThread does the handshake and thread/start, returning the thread id.
func (a *appServer) startThread(deadline time.Time, params map[string]any) string {
	a.t.Helper()
	a.reply(deadline, a.request("initialize", map[string]any{"clientInfo": map[string]string{"name": "cdevd", "title": "cdevd", "version": "0"}}))
	a.send(map[string]any{"method": "initialized"})
	var started struct {
		Thread struct{ ID string } `json:"thread"`
	}
	if err := json.Unmarshal(a.reply(deadline, a.request("thread/start", params)).Result, &started); err != nil || started.Thread.ID == "" {
		a.t.Fatalf("thread/start: %v %+v", err, started)
	}
	return started.Thread.ID
}

// TestAppServerExecCommand proves the fake's function-call shape: Codex
// takes fakeopenai.Exec's exec_command call, asks for approval under
// untrusted, runs it once accepted, and sends its output back to the model.
func TestAppServerExecCommand(t *testing.T) {
	api := fakeopenai.New(t)
	api.Respond(func(r fakeopenai.Request) fakeopenai.Reply {
		if out, ok := r.CallOutput(); ok {
			return fakeopenai.Text("ran " + out.CallID)
		}
		return fakeopenai.Exec("touch made_by_codex.txt")
	})
	env := Env(t, api.BaseURL())
	ws := t.TempDir()
	deadline := time.Now().Add(Timeout)
	a := startAppServer(t, env, ws)
	thread := a.startThread(deadline, map[string]any{"cwd": ws, "approvalPolicy": "untrusted", "sandbox": "workspace-write"})

	a.reply(deadline, a.request("turn/start", map[string]any{"threadId": thread,
		"input": []map[string]string{{"type": "text", "text": "make a file"}}}))
	ask, _ := a.await(deadline, "item/commandExecution/requestApproval", func(m msg) bool {
		return m.Method == "item/commandExecution/requestApproval" || m.Method == "turn/completed"
	})
	if ask.Method == "turn/completed" {
		t.Fatalf("the turn ended without asking to run the command: %s", ask.raw)
	}
	var approval struct {
		ItemID  string `json:"itemId"`
		Command string `json:"command"`
	}
	if err := json.Unmarshal(ask.Params, &approval); err != nil || ask.ID == nil ||
		approval.ItemID != "call_fake_1" || !strings.Contains(approval.Command, "touch made_by_codex.txt") {
		t.Fatalf("approval request %s", ask.raw)
	}
	a.send(map[string]any{"id": *ask.ID, "result": map[string]string{"decision": "accept"}})

	done, seen := a.await(deadline, "turn/completed", isMethod("turn/completed"))
	var exitCode *int
	var answer string
	for _, m := range seen {
		var p struct {
			Item struct {
				Type     string `json:"type"`
				ID       string `json:"id"`
				Text     string `json:"text"`
				Status   string `json:"status"`
				ExitCode *int   `json:"exitCode"`
			} `json:"item"`
		}
		if m.Method != "item/completed" || json.Unmarshal(m.Params, &p) != nil {
			continue
		}
		switch p.Item.Type {
		case "commandExecution":
			if p.Item.ID != "call_fake_1" || p.Item.Status != "completed" {
				t.Errorf("command item %s", m.raw)
			}
			exitCode = p.Item.ExitCode
		case "agentMessage":
			answer = p.Item.Text
		}
	}
	if exitCode == nil || *exitCode != 0 || answer != "ran call_fake_1" {
		t.Errorf("exit code %v, answer %q; turn/completed %s", exitCode, answer, done.Params)
	}
	if _, err := os.Stat(filepath.Join(ws, "made_by_codex.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	reqs := api.ResponseRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if out, ok := reqs[1].CallOutput(); !ok || !strings.Contains(out.OutputText(), "exited with code 0") {
		t.Errorf("second request's last item %+v", out)
	}
	if !strings.Contains(reqs[1].Transcript(), `call: exec_command {"cmd":"touch made_by_codex.txt"}`) {
		t.Errorf("transcript %q", reqs[1].Transcript())
	}
	if u := api.Unexpected(); len(u) != 0 {
		t.Errorf("unexpected requests to the fake: %+v", u)
	}
	a.stdin.Close()
	if _, ok := a.waitExit(deadline); !ok {
		t.Fatal("app-server still running after stdin EOF")
	}
}
