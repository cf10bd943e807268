package codex

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// BenchmarkFirstEvent measures what a user waits for: from nothing to the
// first streamed word of a new session's first turn, over the real CLI and
// the fake Responses API. "cli" drives `codex app-server` by hand (spawn,
// initialize, thread/start, turn/start, first item/agentMessage/delta);
// "cdevd" is the adapter doing the same (Start, Send, first MessageDelta).
// The ratio cdevd/cli is cdevd's overhead, free of the machine's speed.
// Metrics: thread-ms (spawn → thread id) and delta-ms (send → first delta).
func BenchmarkFirstEvent(b *testing.B) {
	api := fakeopenai.New(b)
	env := codextest.Env(b, api.BaseURL())
	bin := codextest.Bin(b)
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("cli", func(b *testing.B) {
		var thread, delta time.Duration
		for b.Loop() {
			th, first := rawFirstDelta(b, bin, env, ws)
			thread += th
			delta += first - th
		}
		b.ReportMetric(float64(thread.Milliseconds())/float64(b.N), "thread-ms")
		b.ReportMetric(float64(delta.Milliseconds())/float64(b.N), "delta-ms")
	})
	b.Run("cdevd", func(b *testing.B) {
		a := New(Config{Bin: bin, Env: env, Logger: zap.NewNop()})
		var thread, delta time.Duration
		for b.Loop() {
			evs := newEvents()
			t0 := time.Now()
			s, err := a.Start(codextest.Context(b), runtimes.StartRequest{Dir: ws}, evs.add)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := s.Send(codextest.Context(b), runtimes.Turn{Prompt: "hello"}); err != nil {
				b.Fatal(err)
			}
			for {
				next := evs.wait()
				if count[runtimes.MessageDelta](evs.all()) > 0 {
					break
				}
				select {
				case <-next:
				case <-time.After(codextest.Timeout):
					b.Fatal("no delta")
				}
			}
			t2 := time.Now()
			thread += t1.Sub(t0)
			delta += t2.Sub(t1)
			if err := s.Close(codextest.Context(b)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(thread.Milliseconds())/float64(b.N), "thread-ms")
		b.ReportMetric(float64(delta.Milliseconds())/float64(b.N), "delta-ms")
	})
}

// rawFirstDelta runs one app-server by hand and returns the time from spawn
// to the thread id and to the first delta.
func rawFirstDelta(b *testing.B, bin string, env []string, ws string) (thread, delta time.Duration) {
	cmd := exec.Command(bin, "app-server")
	cmd.Env, cmd.Dir = env, ws
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	write := func(v any) {
		line, _ := json.Marshal(v)
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			b.Fatal(err)
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	next := func(match func(id int, method string, result json.RawMessage) bool) json.RawMessage {
		for sc.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				id := -1
				if m.ID != nil {
					id = *m.ID
				}
				if match(id, m.Method, m.Result) {
					return m.Result
				}
			}
		}
		b.Fatalf("app-server ended: %v", sc.Err())
		return nil
	}
	reply := func(want int) func(int, string, json.RawMessage) bool {
		return func(id int, method string, _ json.RawMessage) bool { return id == want && method == "" }
	}
	write(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]string{"name": "bench", "version": "0"}}})
	next(reply(1))
	write(map[string]any{"method": "initialized"})
	write(map[string]any{"id": 2, "method": "thread/start", "params": map[string]any{"cwd": ws, "approvalPolicy": "untrusted", "sandbox": "workspace-write"}})
	var res struct {
		Thread struct{ ID string } `json:"thread"`
	}
	if err := json.Unmarshal(next(reply(2)), &res); err != nil || res.Thread.ID == "" {
		b.Fatalf("thread/start: %v", err)
	}
	thread = time.Since(t0)
	write(map[string]any{"id": 3, "method": "turn/start", "params": map[string]any{"threadId": res.Thread.ID,
		"input": []map[string]string{{"type": "text", "text": "hello"}}}})
	next(func(_ int, method string, _ json.RawMessage) bool { return method == "item/agentMessage/delta" })
	return thread, time.Since(t0)
}
