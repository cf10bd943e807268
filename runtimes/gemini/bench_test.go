package gemini

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
)

// BenchmarkFirstEvent measures what a user waits for: from nothing to the
// first streamed word of a new session's first turn, over the real CLI and
// the fake Gemini API. "cli" drives `gemini --acp` by hand (spawn,
// initialize, session/new, session/prompt, first agent_message_chunk);
// "cdevd" is the adapter doing the same (Start, Send, first MessageDelta).
// The ratio cdevd/cli is cdevd's overhead, free of the machine's speed.
// Metrics: session-ms (spawn → session id) and delta-ms (send → first delta).
func BenchmarkFirstEvent(b *testing.B) {
	api := fakegemini.New(b)
	api.Respond(reply)
	env := geminitest.Env(b, api.URL())
	bin := geminitest.Bin(b)
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("cli", func(b *testing.B) {
		var session, delta time.Duration
		for b.Loop() {
			s, first := rawFirstChunk(b, bin, env, ws)
			session += s
			delta += first - s
		}
		b.ReportMetric(float64(session.Milliseconds())/float64(b.N), "session-ms")
		b.ReportMetric(float64(delta.Milliseconds())/float64(b.N), "delta-ms")
	})
	b.Run("cdevd", func(b *testing.B) {
		a := New(Config{Bin: bin, Env: env, Logger: zap.NewNop()})
		var session, delta time.Duration
		for b.Loop() {
			got := make(chan struct{}, 1)
			sink := func(ev runtimes.Event) {
				if _, ok := ev.(runtimes.MessageDelta); ok {
					select {
					case got <- struct{}{}:
					default:
					}
				}
			}
			t0 := time.Now()
			s, err := a.Start(geminitest.Context(b), runtimes.StartRequest{Dir: ws}, sink)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := s.Send(geminitest.Context(b), runtimes.Turn{Prompt: "hello"}); err != nil {
				b.Fatal(err)
			}
			select {
			case <-got:
			case <-time.After(geminitest.Timeout):
				b.Fatal("no delta")
			}
			t2 := time.Now()
			session += t1.Sub(t0)
			delta += t2.Sub(t1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			if err := s.Close(ctx); err != nil {
				b.Fatal(err)
			}
			cancel()
		}
		b.ReportMetric(float64(session.Milliseconds())/float64(b.N), "session-ms")
		b.ReportMetric(float64(delta.Milliseconds())/float64(b.N), "delta-ms")
	})
}

// rawFirstChunk runs one gemini --acp by hand and returns the time from
// spawn to the session id and to the first agent_message_chunk.
func rawFirstChunk(b *testing.B, bin string, env []string, ws string) (session, delta time.Duration) {
	cmd := exec.Command(bin, "--acp")
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
	next := func(match func(id int, update string, result json.RawMessage) bool) json.RawMessage {
		for sc.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Params struct {
					Update struct {
						SessionUpdate string `json:"sessionUpdate"`
					} `json:"update"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				id := -1
				if m.ID != nil && m.Method == "" {
					id = *m.ID
				}
				if match(id, m.Params.Update.SessionUpdate, m.Result) {
					return m.Result
				}
			}
		}
		b.Fatalf("gemini ended: %v", sc.Err())
		return nil
	}
	reply := func(want int) func(int, string, json.RawMessage) bool {
		return func(id int, _ string, _ json.RawMessage) bool { return id == want }
	}
	write(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false}}})
	next(reply(1))
	write(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": ws, "mcpServers": []any{}}})
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(next(reply(2)), &res); err != nil || res.SessionID == "" {
		b.Fatalf("session/new: %v", err)
	}
	session = time.Since(t0)
	write(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": map[string]any{"sessionId": res.SessionID,
		"prompt": []map[string]string{{"type": "text", "text": "hello"}}}})
	next(func(_ int, update string, _ json.RawMessage) bool { return update == "agent_message_chunk" })
	return session, time.Since(t0)
}
