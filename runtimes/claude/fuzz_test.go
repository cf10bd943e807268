package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// FuzzStreamLines feeds stdout lines, as the CLI would print them during a
// turn, to a session. Whatever they hold: no panic; every event, and every
// line written back to the CLI, encodes as JSON; every completed message is
// one clients can decode, emitted once; a turn's cost is finite and not
// negative. Seeds are the golden stdout captures of testdata/stream.
func FuzzStreamLines(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "stream", "*.jsonl"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b) // the whole capture: state carries across lines
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var log []entry
		seen := map[string]bool{}
		s := newTestSession("fuzz-session", func(ev runtimes.Event) {
			if _, err := json.Marshal(ev); err != nil {
				t.Errorf("%T does not encode: %v", ev, err)
			}
			switch ev := ev.(type) {
			case runtimes.MessageCompleted:
				checkMessage(t, ev.Message)
				if seen[ev.Message.ID] {
					t.Errorf("message %q emitted twice", ev.Message.ID)
				}
				seen[ev.Message.ID] = true
			case runtimes.TurnCompleted:
				if c := ev.CostUSD; c != nil && (*c < 0 || math.IsInf(*c, 0) || math.IsNaN(*c)) {
					t.Errorf("turn cost %v", *c)
				}
			}
		}, zap.NewNop())
		s.attach(nil, recorder{&log})
		s.em.Run()
		if err := s.Send(context.Background(), runtimes.Turn{Prompt: "fuzz"}); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			s.handleLine(line)
			s.replies.Wait()
		}
		for _, e := range log {
			if e.Stdin != nil && !json.Valid(e.Stdin) {
				t.Errorf("wrote an invalid JSON line to the CLI: %q", e.Stdin)
			}
		}
	})
}

// checkMessage fails unless m is a message clients can decode.
func checkMessage(t *testing.T, m rpc.Message) {
	t.Helper()
	if m.Type != rpc.MessageUser && m.Type != rpc.MessageAssistant {
		t.Errorf("message type %q", m.Type)
	}
	if m.SessionID != "fuzz-session" {
		t.Errorf("session id %q", m.SessionID)
	}
	if _, err := time.Parse(time.RFC3339Nano, m.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", m.Timestamp, err)
	}
	if m.Message.Content == nil {
		t.Error("content is nil")
	}
	for _, b := range m.Message.Content {
		switch b.Type {
		case rpc.BlockText, rpc.BlockThinking, rpc.BlockToolUse, rpc.BlockToolResult, rpc.BlockImage:
		default:
			t.Errorf("block type %q", b.Type)
		}
	}
	if _, err := json.Marshal(m); err != nil {
		t.Errorf("message does not encode: %v", err)
	}
}
