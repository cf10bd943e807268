package lineindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// refreshTuned is a Cache's refresh of old with t.
func refreshTuned[T any, P Indexed[T]](ctx context.Context, old P, f *os.File, fi os.FileInfo,
	add func(x P, line []byte) bool, log *zap.Logger, what string, t Tuning) (P, Scan, error) {
	return scanner[T, P]{add: add, log: log, what: what, tuning: t}.refresh(ctx, old, f, fi)
}

// mergingIndex is testIndex that can be built in parts.
type mergingIndex struct {
	plain
	all []string
}

func (x *mergingIndex) add(b []byte) bool {
	x.all = append(x.all, string(b))
	return !strings.HasPrefix(string(b), "#")
}

func (x *mergingIndex) Merge(y *mergingIndex) { x.all = append(x.all, y.all...) }

// The indexes of these tests persist nothing of their own.
func (x *mergingIndex) AppendFacts(b []byte) []byte { return b }
func (x *mergingIndex) ReadFacts([]byte) error      { return nil }
func (x *firstIndex) AppendFacts(b []byte) []byte   { return b }
func (x *firstIndex) ReadFacts([]byte) error        { return nil }
func (x *expectIndex) AppendFacts(b []byte) []byte  { return b }
func (x *expectIndex) ReadFacts([]byte) error       { return nil }

// TestFullScanInParts: a file scanned in parts on several cores is indexed
// exactly as in one scan: kept lines, what the owner saw in order, a torn
// last line held.
func TestFullScanInParts(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f.jsonl")
	var b strings.Builder
	for i := range 400 {
		if i%7 == 0 {
			fmt.Fprintf(&b, "# comment %d\n", i)
		}
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%13))
	}
	b.WriteString("torn")
	writeFile(t, p, b.String())

	build := func(minPart int64, procs int) *mergingIndex {
		t.Helper()
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		x, sc, err := refreshTuned(context.Background(), nil, f, fi, (*mergingIndex).add, zap.NewNop(), "test",
			Tuning{ParallelMin: minPart, Parts: procs})
		if err != nil || !sc.Full || sc.Bytes != fi.Size() {
			t.Fatalf("scan %+v, %v", sc, err)
		}
		return x
	}
	one := build(1<<40, 1)
	for _, procs := range []int{2, 3, 7} {
		parts := build(64, procs)
		if !slices.Equal(parts.Lines(), one.Lines()) || !slices.Equal(parts.all, one.all) {
			t.Fatalf("%d parts: %d lines, owner saw %d; one scan: %d, %d", procs, len(parts.Lines()), len(parts.all), len(one.Lines()), len(one.all))
		}
		ps, os1 := parts.split, one.split
		if ps.Pos != os1.Pos || string(ps.Pending) != string(os1.Pending) || ps.Partial != os1.Partial || ps.Skipped != os1.Skipped {
			t.Errorf("%d parts: splitter %+v, one scan %+v", procs, ps, os1)
		}
	}
}

// firstIndex keeps the first line that starts with "!" of its file, as a
// transcript index keeps its first prompt, looking only while no earlier
// part found one.
type firstIndex struct {
	plain
	first    string
	started  bool // add was called
	late     bool // the part began after an earlier one found
	searched int  // lines looked at after an earlier part found
}

func (x *firstIndex) add(b []byte) bool {
	if !x.started {
		x.started, x.late = true, x.FoundBefore()
	}
	if x.first == "" && !x.FoundBefore() {
		if strings.HasPrefix(string(b), "!") {
			x.first = string(b)
			x.Found()
		}
		if x.late {
			x.searched++
		}
	}
	return true
}

func (x *firstIndex) Merge(y *firstIndex) {
	if x.first == "" {
		x.first = y.first
	}
	x.searched += y.searched
}

// TestFullScanFirstFound: what only the earliest part's finding of is kept
// is the first in the file, wherever it is; and a part that begins after an
// earlier one found it does not look.
func TestFullScanFirstFound(t *testing.T) {
	dir := t.TempDir()
	t.Parallel()
	tuning := Tuning{ParallelMin: 64, Parts: maxParts}
	for _, at := range []int{0, 1, 150, 399, -1} { // where the first "!" line is; -1: none
		var b strings.Builder
		want := ""
		for i := range 400 {
			if i == at {
				want = fmt.Sprintf("!first %d", i)
				b.WriteString(want + "\n")
			} else if at >= 0 && i > at && i%50 == 0 {
				fmt.Fprintf(&b, "!later %d\n", i)
			}
			fmt.Fprintf(&b, "line %d\n", i)
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.jsonl", at))
		writeFile(t, p, b.String())
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		x, _, err := refreshTuned(context.Background(), nil, f, fi, (*firstIndex).add, zap.NewNop(), "test", tuning)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if x.first != want || x.searched != 0 || x.Index.first != nil {
			t.Errorf("first at %d: kept %q, want %q; %d lines looked at late; still a part: %v", at, x.first, want, x.searched, x.Index.first != nil)
		}
	}
}

// expectIndex keeps every line and records what a scan expects (Indexed's Expect).
type expectIndex struct {
	plain
	expects  []expected
	finished int // scans ended (Indexed's Finish)
}

// expected is one Expect call, and where the index's lines were then.
type expected struct {
	part, total float64
	lines       *Span
}

func (x *expectIndex) add([]byte) bool { return true }

func (x *expectIndex) Merge(y *expectIndex) {
	x.expects = append(x.expects, y.expects...)
	x.finished += y.finished
}

func (x *expectIndex) Finish() { x.finished++ }

func (x *expectIndex) Expect(part, total float64) {
	x.expects = append(x.expects, expected{part, total, unsafe.SliceData(x.Lines())})
}

// TestScanExpects: each part of a big scan is told once, after its first
// chunk, how much of its part and of the whole it has read, and its lines
// are reserved from that rather than grown: the first part, which takes in
// the others' lines, holds them all where it reserved them, never copied to
// grow or to merge. Each part's scan, and each later one of what was
// appended, ends with Finish.
func TestScanExpects(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f.jsonl")
	var b strings.Builder
	for i := 0; b.Len() < 6<<20; i++ {
		fmt.Fprintf(&b, "line %08d %s\n", i, strings.Repeat("x", 40+i%50))
	}
	writeFile(t, p, b.String())
	tuning := Tuning{ParallelMin: 1 << 20, Parts: 2}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	x, _, err := refreshTuned(context.Background(), nil, f, fi, (*expectIndex).add, zap.NewNop(), "test", tuning)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.expects) != 2 {
		t.Fatalf("told %d times, want once per part (2): %v", len(x.expects), x.expects)
	}
	first := x.expects[0]
	if got := first.total * jsonl.ChunkSize; got != float64(fi.Size()) {
		t.Errorf("first part told the whole is %.0f bytes, want %d", got, fi.Size())
	}
	for i, e := range x.expects {
		if e.part < 4 || e.part > e.total {
			t.Errorf("part %d told part %.2f, total %.2f", i, e.part, e.total)
		}
	}
	if n := len(x.Lines()); n < 60000 || unsafe.SliceData(x.Lines()) != first.lines {
		t.Errorf("%d lines copied after the first part reserved room for them (%d now)", n, cap(x.Lines()))
	}
	if x.finished != 2 {
		t.Errorf("%d scans finished, want 2 (one per part)", x.finished)
	}
	appendFile(t, p, "line appended\n")
	fi, _ = f.Stat()
	y, sc, err := refreshTuned(context.Background(), x, f, fi, (*expectIndex).add, zap.NewNop(), "test", tuning)
	if err != nil || sc.Full || y.finished != 3 {
		t.Errorf("append: scan %+v, %v, %d scans finished; want 3", sc, err, y.finished)
	}
}
