package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixedNow stands in for the clock in tests of lines without a timestamp.
func fixedNow(t *testing.T) {
	t.Helper()
	old := now
	now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	t.Cleanup(func() { now = old })
}

// TestToMessageGolden converts every line of testdata/lines/*.jsonl and
// compares the results (null for lines that are not messages) with
// testdata/lines/*.golden.json. Run with -update to rewrite them.
func TestToMessageGolden(t *testing.T) {
	fixedNow(t)
	files, err := filepath.Glob("testdata/lines/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no input files: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var got []*rpc.Message
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				l, err := ParseLine(sc.Bytes())
				if err != nil {
					t.Fatalf("line %d: %v", len(got)+1, err)
				}
				if m, ok := ToMessage("", l); ok {
					got = append(got, &m)
				} else {
					got = append(got, nil)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // keep <command-…> texts readable
			enc.SetIndent("", "  ")
			if err := enc.Encode(got); err != nil {
				t.Fatal(err)
			}
			b := buf.Bytes()
			golden := strings.TrimSuffix(in, ".jsonl") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("ToMessage output differs from %s (run go test -update and review the diff):\n%s", golden, b)
			}
		})
	}
}

// TestToMessageStdoutID: stdout lines carry the session as session_id and
// may lack a uuid; the id falls back to the API message id, and the
// timestamp to now.
func TestToMessageStdoutID(t *testing.T) {
	fixedNow(t)
	l, err := ParseLine([]byte(`{"type":"assistant","message":{"id":"msg_9","role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s1"}`))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := ToMessage("", l)
	if !ok {
		t.Fatal("assistant line not converted")
	}
	if m.ID != "msg_9" || m.SessionID != "s1" || m.Timestamp != "2026-01-02T03:04:05.000Z" {
		t.Errorf("got id %q session %q timestamp %q", m.ID, m.SessionID, m.Timestamp)
	}
	if m, _ := ToMessage("s2", l); m.SessionID != "s2" {
		t.Errorf("explicit session id: got %q", m.SessionID)
	}
}

func TestParseLineMalformed(t *testing.T) {
	for _, in := range []string{``, `{"type":"user"`, `not json`} {
		if _, err := ParseLine([]byte(in)); err == nil {
			t.Errorf("ParseLine(%q): no error", in)
		}
	}
}

func TestEncodeDir(t *testing.T) {
	long := "/" + strings.Repeat("a", 250)
	longAccents := "/" + strings.Repeat("é", 210) + "/b"
	for _, c := range []struct{ in, want string }{
		{"/tmp/tcap/work", "-tmp-tcap-work"}, // as observed from the CLI
		{"/home/me/my_app.v2", "-home-me-my-app-v2"},
		{"/home/zoë/プロ", "-home-zo----"},
		{"/x/😀", "-x---"}, // one rune, two UTF-16 units
		// Long names: expected values computed with the CLI's own function.
		{long, "-" + strings.Repeat("a", 199) + "-feo44x"},               // positive hash
		{longAccents, "-" + strings.Repeat("-", 199) + "-9iadwi"},        // negative hash
		{"/" + strings.Repeat("b", 199), "-" + strings.Repeat("b", 199)}, // exactly 200: kept
	} {
		if got := EncodeDir(c.in); got != c.want {
			t.Errorf("EncodeDir(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
