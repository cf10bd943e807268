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

// splitLine is one line as the splitter reports it.
type splitLine struct {
	off  int64
	text string
}

// splitAll is the reference: lines cut at every newline, those longer than
// max dropped and counted, and what follows the last newline left pending.
func splitAll(data []byte, max int64) (lines []splitLine, skipped int, pos int64) {
	for {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			return lines, skipped, pos
		}
		if int64(i) > max {
			skipped++
		} else {
			lines = append(lines, splitLine{pos, string(data[pos : pos+int64(i)])})
		}
		pos += int64(i) + 1
	}
}

// FuzzLineSplitter: feeding the same bytes in any chunking gives the lines,
// offsets, skipped count and pending tail of a plain split.
func FuzzLineSplitter(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), []byte{1, 2, 3}, uint8(2))
	f.Add([]byte("0123456789\nx\n"), []byte{4}, uint8(3))
	f.Add([]byte("\n\n\n"), []byte{}, uint8(0))
	files, _ := filepath.Glob(filepath.Join("testdata", "lines", "*.jsonl"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, []byte{7, 100, 250, 3}, uint8(200))
		}
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, max uint8) {
		limit := int64(max) + 1
		want, skipped, end := splitAll(data, limit)
		s := lineSplitter{max: limit}
		var got []splitLine
		fn := func(off int64, b []byte) { got = append(got, splitLine{off, string(b)}) }
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				if c := int(cuts[i%len(cuts)]); c == 0 {
					s.feed(nil, fn) // an empty read
				} else {
					n = min(n, c)
				}
			}
			s.feed(rest[:n], fn)
			rest = rest[n:]
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("line %d: got %d:%q, want %d:%q", i, got[i].off, got[i].text, want[i].off, want[i].text)
			}
		}
		tail := data[end:]
		if s.pos != end || s.partial != int64(len(tail)) || s.skipped != skipped {
			t.Fatalf("pos %d, partial %d, skipped %d; want %d, %d, %d", s.pos, s.partial, s.skipped, end, len(tail), skipped)
		}
		if int64(len(tail)) <= limit && !bytes.Equal(s.pending, tail) {
			t.Fatalf("pending %q, want %q", s.pending, tail)
		}
	})
}
