package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// seedLines adds every line of the golden inputs (transcripts and stdout
// captured from the real CLI) as a seed.
func seedLines(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "lines", "*.jsonl"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
}

// checkMessage fails unless m is a message clients can decode: a known type,
// the session it was asked for, an RFC 3339 time, blocks of the protocol's
// five types (never nil), and JSON that encodes.
func checkMessage(t *testing.T, sessionID string, m rpc.Message) {
	t.Helper()
	if m.Type != rpc.MessageUser && m.Type != rpc.MessageAssistant {
		t.Errorf("message type %q", m.Type)
	}
	if sessionID != "" && m.SessionID != sessionID {
		t.Errorf("session id %q, want %q", m.SessionID, sessionID)
	}
	if _, err := time.Parse(time.RFC3339Nano, m.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", m.Timestamp, err)
	}
	if m.Message.Content == nil {
		t.Error("content is nil (encodes as null, not [])")
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

// FuzzParseLine: any line either fails to parse or parses to a Line that
// ToMessage accepts exactly when isMessage does (counts and pages rely on
// that), into a valid message.
func FuzzParseLine(f *testing.F) {
	seedLines(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLine(b)
		if err != nil {
			if json.Valid(b) {
				t.Fatalf("valid JSON refused: %v", err)
			}
			return
		}
		m, ok := ToMessage("fuzz-session", l)
		if ok != isMessage(l) {
			t.Fatalf("ToMessage ok=%v, isMessage=%v", ok, isMessage(l))
		}
		if ok {
			checkMessage(t, "fuzz-session", m)
		}
		_ = prompt(l)
	})
}
