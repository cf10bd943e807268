package stdiorpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// helperEnv turns the test binary into a fake agent CLI (see TestMain).
const helperEnv = "STDIORPC_HELPER"

// runHelper speaks like codex app-server on stdin/stdout: no "jsonrpc" in
// what it writes, server→client request ids from 0. Methods: echo (result =
// params), ask (asks the client "approve" with id 0, answers with the
// client's answer), die (exits 3 without replying); notification note is
// echoed as noted. Stdin EOF: exit 0.
func runHelper(mode string) int {
	if mode != "agent" {
		fmt.Fprintln(os.Stderr, "unknown helper", mode)
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		_ = out.Flush()
	}
	var askID json.RawMessage
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage
			Method string
			Params json.RawMessage
			Result json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return 4
		}
		if len(m.Params) == 0 {
			m.Params = json.RawMessage("null")
		}
		switch m.Method {
		case "echo":
			send(`{"id":%s,"result":%s}`, m.ID, m.Params)
		case "ask":
			askID = m.ID
			send(`{"method":"approve","id":0,"params":{"command":"touch x"}}`)
		case "note":
			send(`{"method":"noted","params":%s}`, m.Params)
		case "die":
			return 3
		case "":
			if string(m.ID) == "0" && askID != nil {
				send(`{"id":%s,"result":%s}`, askID, m.Result)
			}
		}
	}
	return 0
}

type child struct {
	cmd    *exec.Cmd
	waited chan error
}

func startChild(t *testing.T, h Handlers) (*Peer, *child) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	// Under -race a child sleeps 1 s at a clean exit unless told not to.
	cmd.Env = append(os.Environ(), helperEnv+"=agent", "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := New(stdout, stdin, h, Options{})
	c := &child{cmd: cmd, waited: make(chan error, 1)}
	t.Cleanup(func() {
		_ = p.Close()
		select {
		case <-c.waited:
		default:
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p, c
}

// wait reaps the child once the peer has read all its output.
func (c *child) wait(t *testing.T) error {
	t.Helper()
	go func() { c.waited <- c.cmd.Wait() }()
	select {
	case err := <-c.waited:
		c.waited <- err
		return err
	case <-time.After(waitFor):
		t.Fatal("child did not exit")
		return nil
	}
}

func TestChildProcess(t *testing.T) {
	notes := make(chan string, 1)
	p, c := startChild(t, Handlers{
		OnRequest: func(r *Request) {
			// Answered later, from another goroutine, as a user would.
			go func() { _ = r.Reply(map[string]string{"decision": "accept"}) }()
		},
		OnNotification: func(method string, params json.RawMessage) { notes <- method + string(params) },
	})
	ctx := context.Background()

	var echoed map[string]int
	if err := p.Call(ctx, "echo", map[string]int{"a": 1}, &echoed); err != nil || echoed["a"] != 1 {
		t.Fatalf("echo = %v, %v", err, echoed)
	}
	var answer struct{ Decision string }
	if err := p.Call(ctx, "ask", nil, &answer); err != nil || answer.Decision != "accept" {
		t.Fatalf("ask = %v, %+v", err, answer)
	}
	if err := p.Notify("note", []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notes:
		if n != "noted[1,2]" {
			t.Fatalf("notification = %q", n)
		}
	case <-time.After(waitFor):
		t.Fatal("no notification from the child")
	}

	// The CLI dies with a call pending: the call fails, the process is gone.
	err := p.Call(ctx, "die", nil, nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("Call to a dying child = %v", err)
	}
	var exit *exec.ExitError
	if werr := c.wait(t); !errors.As(werr, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("child exit = %v", werr)
	}
	if err := p.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		t.Logf("Close after death: %v", err)
	}
}

// Close closes the child's stdin, and a CLI exits on EOF (both real ones do).
func TestChildExitsOnClose(t *testing.T) {
	p, c := startChild(t, Handlers{})
	if err := p.Call(context.Background(), "echo", 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.wait(t); err != nil {
		t.Fatalf("child after Close: %v", err)
	}
}
