package geminitest

// A bare client of gemini --acp for the tests: the agent process, its
// newline-delimited JSON-RPC read and written, and what they wait for.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// msg is one line of gemini --acp's newline-delimited JSON-RPC: a reply (ID
// with Result or Error), a notification (Method) or an agent request (both;
// the agent's ids start at 0, so ID is a pointer).
type msg struct {
	ID     *int64          `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	raw    []byte
	at     time.Time
}

// update is a session/update notification's params.
type update struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		// Content is a content block in message chunks, a list in tool calls.
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"toolCallId"`
		Status     string          `json:"status"`
	} `json:"update"`
}

// chunk is a message chunk's text content.
func (u update) chunk() (text string, ok bool) {
	var c struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	return c.Text, json.Unmarshal(u.Update.Content, &c) == nil && c.Type == "text"
}

func (m msg) update() (update, bool) {
	var u update
	return u, m.Method == "session/update" && json.Unmarshal(m.Params, &u) == nil
}

// agent is a hand-written ACP client: just enough JSON-RPC to drive one
// session of `gemini --acp`.
type agent struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan msg
	stderr bytes.Buffer
	nextID int64
	exited chan error // Wait's result, once the process is gone
	gone   bool       // exited has been received
}

func startACP(t *testing.T, env []string, dir string) *agent {
	t.Helper()
	a := &agent{t: t, lines: make(chan msg, 1024), exited: make(chan error, 1)}
	a.cmd = exec.Command(Bin(t), "--acp")
	a.cmd.Env, a.cmd.Dir = env, dir
	// Its own group, so that cleanup reaches anything the CLI spawned (tool
	// commands, a relaunched child if the environment allowed one).
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
				t.Errorf("gemini survived SIGKILL of its group")
			}
		}
		if t.Failed() {
			t.Logf("gemini stderr:\n%s", a.stderr.String())
		}
	})
	return a
}

// waitExit discards what is left on stdout until the process has exited, or
// the deadline passes (ok false).
func (a *agent) waitExit(deadline time.Time) (err error, ok bool) {
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

func (a *agent) send(v any) {
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
func (a *agent) request(method string, params any) int64 {
	a.t.Helper()
	a.nextID++
	a.send(map[string]any{"jsonrpc": "2.0", "id": a.nextID, "method": method, "params": params})
	return a.nextID
}

// await reads until a message matches, failing at the deadline or when
// stdout ends; the messages read on the way (the match included) are
// returned too.
func (a *agent) await(deadline time.Time, what string, match func(msg) bool) (msg, []msg) {
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

func isReply(id int64) func(msg) bool {
	return func(m msg) bool { return m.ID != nil && *m.ID == id && m.Method == "" }
}

func (a *agent) reply(deadline time.Time, id int64) (msg, []msg) {
	a.t.Helper()
	m, seen := a.await(deadline, fmt.Sprintf("reply to %d", id), isReply(id))
	if m.Error != nil {
		a.t.Fatalf("request %d failed: %s", id, m.Error)
	}
	return m, seen
}

// promptResult is session/prompt's reply: the turn's end and its usage.
type promptResult struct {
	StopReason string `json:"stopReason"`
	Meta       struct {
		Quota struct {
			TokenCount struct {
				InputTokens  int `json:"input_tokens"`
				OutputTokens int `json:"output_tokens"`
			} `json:"token_count"`
			ModelUsage []struct {
				Model string `json:"model"`
			} `json:"model_usage"`
		} `json:"quota"`
	} `json:"_meta"`
}

func freshMark(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "CDEVD_TEST_MARK=" + hex.EncodeToString(b)
}

// open does the handshake and session/new in ws, returning the session id.
func (a *agent) open(deadline time.Time, ws string) string {
	a.t.Helper()
	a.reply(deadline, a.request("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false}}))
	created, _ := a.reply(deadline, a.request("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}))
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(created.Result, &res); err != nil || res.SessionID == "" {
		a.t.Fatalf("session/new result %s (%v)", created.Result, err)
	}
	return res.SessionID
}
