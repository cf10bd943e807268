package claude

// What Claude Code 2.1.197 does with a user line written to its stream-json
// stdin while a turn runs, pinned so that a CLI version that changes it is
// noticed (docs/runtimes.md, "Steering"). It decides why the adapter does not
// offer session/steer: the line reaches the running turn only when that turn
// makes another model request (after a tool); when the model's answer ends
// the turn instead, the line runs as a turn of its own with its own result,
// which a steer that must land in the running turn cannot rely on.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// rawCLI is the real CLI started with the adapter's own command line, its
// stdout read line by line, for observing the CLI itself.
type rawCLI struct {
	t     *testing.T
	stdin interface{ Write([]byte) (int, error) }
	lines chan map[string]any
}

func startRawCLI(t *testing.T, fake *fakeanthropic.Server, dir string) *rawCLI {
	t.Helper()
	a, err := args(runtimes.StartRequest{}, "0b8c6f8e-5f0a-4c55-9d51-3d1f2a6f7e01")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(claudetest.Bin(t), a...)
	cmd.Dir = dir
	cmd.Env = claudetest.Env(t, fake.URL())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawCLI{t: t, stdin: stdin, lines: make(chan map[string]any, 256)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(r.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				r.lines <- m
			}
		}
	}()
	// Registered after the fake started: the CLI goes before the fake
	// waits for its open requests.
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for range r.lines { // drain, so the reader can end
		}
		<-read
		_ = cmd.Wait()
	})
	return r
}

func (r *rawCLI) write(v any) {
	r.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.stdin.Write(append(b, '\n')); err != nil {
		r.t.Fatalf("write to the CLI: %v", err)
	}
}

func (r *rawCLI) user(text string) {
	r.write(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]string{"type": "text", "text": text}}}})
}

// read returns the CLI's lines up to and including the first that match
// accepts (what): failing the test if none comes in time.
func (r *rawCLI) read(ctx context.Context, what string, match func(map[string]any) bool) []map[string]any {
	r.t.Helper()
	var got []map[string]any
	for {
		select {
		case m, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("the CLI ended before %s; it said %v", what, summary(got))
			}
			got = append(got, m)
			if match(m) {
				return got
			}
		case <-ctx.Done():
			r.t.Fatalf("no %s came; the CLI said %v", what, summary(got))
		}
	}
}

func isResult(m map[string]any) bool { return m["type"] == "result" }

// summary is lines as type[/subtype] and, for results and replayed user
// text, what they say: the sequence a failing pin reports.
func summary(lines []map[string]any) []string {
	var out []string
	for _, m := range lines {
		s, _ := m["type"].(string)
		if st, ok := m["subtype"].(string); ok {
			s += "/" + st
		}
		switch {
		case isResult(m):
			s += ": " + str(m["result"])
		case m["type"] == "user":
			s += ": " + userText(m)
		}
		out = append(out, s)
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }

func userText(m map[string]any) string {
	msg, _ := m["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
			return str(bm["text"])
		}
	}
	return ""
}

// steerModel holds the first request of a "hold" prompt until released,
// then answers it with firstReply; a later request of that turn (after a
// tool) is answered "done", any other with the echo.
func steerModel(t *testing.T, fake *fakeanthropic.Server, firstReply fakeanthropic.Reply) (arrived chan struct{}, release func()) {
	arrived, open := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	fake.Respond(func(r fakeanthropic.Request) fakeanthropic.Reply {
		if len(r.Tools) == 0 { // the CLI's side requests (titles)
			return fakeanthropic.Echo(r)
		}
		if !strings.HasPrefix(r.LastUserText(), "hold") {
			return fakeanthropic.Echo(r)
		}
		if !held.CompareAndSwap(false, true) {
			return fakeanthropic.Text("done") // the turn's request after the tool
		}
		close(arrived)
		<-open
		return firstReply
	})
	var once sync.Once
	release = func() { once.Do(func() { close(open) }) }
	t.Cleanup(release) // before the fake closes, which waits for the held request
	return arrived, release
}

// steerMidTurn sends "hold one", and while its model request is open the
// steering line, then a control request whose answer proves the CLI has
// read the steering before the request is released.
func steerMidTurn(t *testing.T, ctx context.Context, cli *rawCLI, arrived chan struct{}, release func()) {
	t.Helper()
	cli.user("hold one")
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the model never received the first prompt")
	}
	cli.user("steered: look here")
	cli.write(map[string]any{"type": "control_request", "request_id": "pin-1",
		"request": map[string]any{"subtype": "set_permission_mode", "mode": "default"}})
	cli.read(ctx, "answer to the control request", func(m map[string]any) bool {
		resp, _ := m["response"].(map[string]any)
		return m["type"] == "control_response" && resp["request_id"] == "pin-1"
	})
	release()
}

// A turn whose answer ends it: the steering is not in the running turn; it
// runs afterwards as a turn of its own, with its own result.
func TestLiveCLIUserLineMidTurnWithoutTool(t *testing.T) {
	fake := fakeanthropic.New(t)
	arrived, release := steerModel(t, fake, fakeanthropic.Text("echo: hold one"))
	cli := startRawCLI(t, fake, t.TempDir())
	ctx := claudetest.Context(t)
	steerMidTurn(t, ctx, cli, arrived, release)

	first := cli.read(ctx, "the first result", isResult)
	if got := str(first[len(first)-1]["result"]); got != "echo: hold one" {
		t.Fatalf("the held turn's result = %q; the CLI said %v", got, summary(first))
	}
	second := cli.read(ctx, "a second result", isResult)
	if got := str(second[len(second)-1]["result"]); got != "echo: steered: look here" {
		t.Errorf("the second result = %q; want the steering answered as its own turn: %v", got, summary(second))
	}
	replayed := false
	for _, m := range second {
		replayed = replayed || (m["type"] == "user" && userText(m) == "steered: look here")
	}
	if !replayed {
		t.Errorf("the steering was not replayed after the first result: %v", summary(second))
	}
	main := mainRequests(fake)
	if len(main) != 2 || strings.Contains(main[0].Transcript(), "steered") ||
		main[1].LastUserText() != "steered: look here" {
		t.Errorf("want two model requests, the steering only in the second as its prompt; got %d:\n%v", len(main), transcripts(main))
	}
}

// A turn that goes on after a tool: the steering joins it, as a system
// message in the next model request, and the turn ends with one result.
func TestLiveCLIUserLineMidTurnAtToolBoundary(t *testing.T) {
	fake := fakeanthropic.New(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("content of a"), 0o600); err != nil {
		t.Fatal(err)
	}
	arrived, release := steerModel(t, fake, fakeanthropic.UseTool("Read", map[string]any{"file_path": file}))
	cli := startRawCLI(t, fake, dir)
	ctx := claudetest.Context(t)
	steerMidTurn(t, ctx, cli, arrived, release)

	first := cli.read(ctx, "the turn's result", isResult)
	if got := str(first[len(first)-1]["result"]); got != "done" {
		t.Fatalf("the turn's result = %q; the CLI said %v", got, summary(first))
	}
	main := mainRequests(fake)
	last := main[len(main)-1]
	msgs := last.Messages
	joined := false
	if n := len(msgs); n > 0 && msgs[n-1].Role == "system" && len(msgs[n-1].Content) > 0 {
		joined = strings.Contains(msgs[n-1].Content[0].Text,
			"The user sent a new message while you were working:\nsteered: look here")
	}
	if !joined {
		t.Errorf("the request after the tool did not end with the steering as a system message:\n%s", tail(last.Transcript()))
	}
	// No turn of its own follows: the next prompt's result is the next one.
	cli.user("after")
	next := cli.read(ctx, "the next prompt's result", isResult)
	if got := str(next[len(next)-1]["result"]); got != "echo: after" {
		t.Errorf("after the steered turn the next result = %q, want the next prompt's: %v", got, summary(next))
	}
}

func transcripts(rs []fakeanthropic.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, tail(r.Transcript()))
	}
	return out
}

// tail is the end of a request's transcript, where the turn's own messages
// are (the CLI's long system context comes first).
func tail(transcript string) string {
	const keep = 400
	if len(transcript) <= keep {
		return transcript
	}
	return "…" + transcript[len(transcript)-keep:]
}

// mainRequests are the turns' model requests, without the CLI's side
// requests (titles), which offer no tools.
func mainRequests(fake *fakeanthropic.Server) []fakeanthropic.Request {
	var main []fakeanthropic.Request
	for _, r := range fake.MessageRequests() {
		if len(r.Tools) > 0 {
			main = append(main, r)
		}
	}
	return main
}
