package jsonl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"go.uber.org/zap"
)

// expectIndex keeps every line and records what a scan expects (Indexed's Expect).
type expectIndex struct {
	Index
	expects  []expected
	finished int // scans ended (Indexed's Finish)
}

// expected is one Expect call, and where the index's lines were then.
type expected struct {
	total float64
	lines *Span
}

func (x *expectIndex) add([]byte) bool { return true }

func (x *expectIndex) Finish() { x.finished++ }

func (x *expectIndex) Expect(total float64) {
	x.expects = append(x.expects, expected{total, unsafe.SliceData(x.Lines())})
}

func (x *expectIndex) AppendFacts(b []byte) []byte { return b }
func (x *expectIndex) ReadFacts([]byte) error      { return nil }

// TestScanExpects: a full scan of a big file is told once, after its first
// chunk, how much of the whole it has read, and its lines are reserved from
// that rather than grown: they stay where it reserved them, never copied.
// The full scan, and each later one of what was appended, ends with Finish;
// a scan of an append is told nothing.
func TestScanExpects(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f.jsonl")
	var b strings.Builder
	for i := 0; b.Len() < 6<<20; i++ {
		fmt.Fprintf(&b, "line %08d %s\n", i, strings.Repeat("x", 40+i%50))
	}
	writeFile(t, p, b.String())
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	x, _, err := Refresh(context.Background(), nil, f, fi, (*expectIndex).add, zap.NewNop(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(x.expects) != 1 {
		t.Fatalf("told %d times, want once: %v", len(x.expects), x.expects)
	}
	first := x.expects[0]
	if got := first.total * ChunkSize; got != float64(fi.Size()) {
		t.Errorf("told the whole is %.0f bytes, want %d", got, fi.Size())
	}
	if n := len(x.Lines()); n < 60000 || unsafe.SliceData(x.Lines()) != first.lines {
		t.Errorf("%d lines copied after the scan reserved room for them (%d now)", n, cap(x.Lines()))
	}
	if x.finished != 1 {
		t.Errorf("%d scans finished, want 1", x.finished)
	}
	appendFile(t, p, "line appended\n")
	fi, _ = f.Stat()
	y, sc, err := Refresh(context.Background(), x, f, fi, (*expectIndex).add, zap.NewNop(), "test")
	if err != nil || sc.Full || y.finished != 2 || len(y.expects) != 1 {
		t.Errorf("append: scan %+v, %v, %d scans finished, told %d times; want 2 and 1", sc, err, y.finished, len(y.expects))
	}
}
