package rollout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// lineGolden is what one rollout line became.
type lineGolden struct {
	Offset  int64        `json:"offset"`
	Kind    string       `json:"kind"`
	Message *rpc.Message `json:"message,omitempty"` // nil: not a message
}

// TestLineGolden converts every line of the captured rollout (real CLI) and
// of synthetic.jsonl (line kinds the capture lacks: apply_patch calls, which
// are no messages without their FileChange item,
// structured output, malformed and odd lines) and compares the result with
// testdata/<name>.golden.json; -update rewrites those.
func TestLineGolden(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	for _, name := range []string{"exec.jsonl", "synthetic.jsonl"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var got []lineGolden
			var split jsonl.Splitter
			split.Feed(b, func(off int64, line []byte) {
				l, err := ParseLine(line)
				g := lineGolden{Offset: off, Kind: l.kind()}
				if err != nil {
					g.Kind = "malformed"
				}
				if m, ok := ToMessage(threadA, off, l); ok {
					g.Message = &m
				}
				got = append(got, g)
			})
			out, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(name, ".jsonl")+".golden.json")
			if *update {
				if err := os.WriteFile(golden, append(out, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.TrimSpace(want), out) {
				t.Errorf("%s differs from %s; run with -update and review the diff:\n%s", name, golden, out)
			}
		})
	}
}

// TestSyntheticSkipsContext checks what the synthetic golden must show:
// injected context and duplicates are not messages, odd lines do not stop
// the reading, and every message has an id.
func TestSyntheticSkipsContext(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "synthetic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	var off int64
	for sc.Scan() {
		l, err := ParseLine(sc.Bytes())
		if m, ok := ToMessage(threadA, off, l); err == nil && ok {
			if m.ID == "" || m.SessionID != threadA {
				t.Errorf("message without id or thread: %+v", m)
			}
			ids = append(ids, m.ID)
		}
		off += int64(len(sc.Bytes())) + 1
	}
	want := "call_2 u_1 line-2060 msg_2"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("message ids %s, want %s", got, want)
	}
}
