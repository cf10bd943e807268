package lineindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// plain is Index with the hooks of Indexed the tests' indexes do not use.
type plain struct{ Index }

func (*plain) Expect(part, total float64) {}
func (*plain) Finish()                    {}
func (*plain) Size() int64                { return 0 }

// testIndex is an owner's index: it keeps the Spans of lines not starting
// with '#' and gathers every line's text besides.
type testIndex struct {
	plain
	all []string
}

func (x *testIndex) add(b []byte) bool {
	x.all = append(x.all, string(b))
	return !strings.HasPrefix(string(b), "#")
}

// Merge, AppendFacts and ReadFacts make testIndex an Indexed: its parts
// join in order, and it persists nothing of its own.
func (x *testIndex) Merge(y *testIndex)          { x.all = append(x.all, y.all...) }
func (x *testIndex) AppendFacts(b []byte) []byte { return b }
func (x *testIndex) ReadFacts([]byte) error      { return nil }

// refresher refreshes the index of one file as a Store does.
type refresher struct {
	t    *testing.T
	path string
	idx  *testIndex
	log  *zap.Logger
}

// refresh brings r.idx up to date and returns what the scan read.
func (r *refresher) refresh(ctx context.Context) (Scan, error) {
	r.t.Helper()
	f, err := os.Open(r.path)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		r.t.Fatal(err)
	}
	x, sc, err := Refresh(ctx, r.idx, f, fi, (*testIndex).add, orNop(r.log), "test")
	if err == nil {
		r.idx = x
	}
	return sc, err
}

// orNop is l, or a logger that logs nothing.
func orNop(l *zap.Logger) *zap.Logger {
	if l == nil {
		return zap.NewNop()
	}
	return l
}

// page reads a page of the kept lines.
func (r *refresher) page(offset, limit int, desc bool) []string {
	r.t.Helper()
	f, err := os.Open(r.path)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	var out []string
	err = r.idx.ReadPage(f, offset, limit, desc, 0, func(off int64, b []byte) error {
		out = append(out, string(b))
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

func (r *refresher) expect(sc Scan, err error, full bool, bytes int64, kept, all []string) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
	if sc.Full != full || sc.Bytes != bytes {
		r.t.Errorf("scan %+v, want full %v, %d bytes", sc, full, bytes)
	}
	if got := r.page(0, 100, false); !slices.Equal(got, kept) {
		r.t.Errorf("kept lines %q, want %q", got, kept)
	}
	if !slices.Equal(r.idx.all, all) {
		r.t.Errorf("owner saw %q, want %q", r.idx.all, all)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestRefresh walks one file through the changes Refresh tells apart:
// unchanged (nothing read), grown (only the new bytes read, a torn line
// completed), shrunk, replaced and rewritten (all read again).
func TestRefresh(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	r := &refresher{t: t, path: p}
	ctx := context.Background()

	writeFile(t, p, "a\n#b\nc\nto")
	sc, err := r.refresh(ctx)
	r.expect(sc, err, true, 9, []string{"a", "c"}, []string{"a", "#b", "c"})

	before := r.idx
	sc, err = r.refresh(ctx)
	r.expect(sc, err, false, 0, []string{"a", "c"}, []string{"a", "#b", "c"})
	if r.idx != before {
		t.Error("an unchanged file got a new index")
	}

	appendFile(t, p, "rn\nd\n")
	sc, err = r.refresh(ctx)
	r.expect(sc, err, false, 5, []string{"a", "c", "torn", "d"}, []string{"a", "#b", "c", "torn", "d"})
	// The old index is a snapshot: growth did not change it.
	if got := len(before.Lines()); got != 2 || before.Info().Size() != 9 {
		t.Errorf("old index changed: %d lines, size %d", got, before.Info().Size())
	}
	if got := r.page(1, 2, true); !slices.Equal(got, []string{"torn", "c"}) {
		t.Errorf("desc page %q", got)
	}
	if got := r.page(5, 2, false); len(got) != 0 {
		t.Errorf("page past the end %q", got)
	}

	// Shrunk: all read again.
	writeFile(t, p, "x\n")
	sc, err = r.refresh(ctx)
	r.expect(sc, err, true, 2, []string{"x"}, []string{"x"})

	// Rewritten in place and longer, so that the old end is no longer a
	// line's end: all read again.
	writeFile(t, p, "yyy\nz\n")
	sc, err = r.refresh(ctx)
	r.expect(sc, err, true, 6, []string{"yyy", "z"}, []string{"yyy", "z"})

	// Replaced by another, longer file: all read again.
	tmp := p + ".tmp"
	writeFile(t, tmp, "yyy\nz\nw\n")
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	sc, err = r.refresh(ctx)
	r.expect(sc, err, true, 8, []string{"yyy", "z", "w"}, []string{"yyy", "z", "w"})
}

// TestRefreshCanceled: a scan that ctx ends returns no index, and the old
// one stays usable.
func TestRefreshCanceled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	r := &refresher{t: t, path: p}
	writeFile(t, p, "a\n")
	if _, err := r.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	old := r.idx
	appendFile(t, p, "b\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.refresh(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("refresh with ended ctx: %v", err)
	}
	if r.idx != old || !slices.Equal(r.page(0, 10, false), []string{"a"}) {
		t.Error("old index lost or changed")
	}
}

// TestRefreshOverlong: a line longer than jsonl.MaxLine is skipped, counted in a
// warning, and the lines after it are indexed at their true offsets.
func TestRefreshOverlong(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB line")
	}
	p := filepath.Join(t.TempDir(), "f.jsonl")
	core, logs := observer.New(zapcore.WarnLevel)
	r := &refresher{t: t, path: p, log: zap.New(core)}
	writeFile(t, p, "a\n"+strings.Repeat("x", jsonl.MaxLine+1)+"\nb\n")
	sc, err := r.refresh(context.Background())
	r.expect(sc, err, true, jsonl.MaxLine+6, []string{"a", "b"}, []string{"a", "b"})
	if got := r.idx.Lines()[1].Off; got != jsonl.MaxLine+4 {
		t.Errorf("line after the overlong one at %d, want %d", got, jsonl.MaxLine+4)
	}
	w := logs.FilterMessage("skipped overlong test lines").All()
	if len(w) != 1 || w[0].ContextMap()["lines"] != int64(1) {
		t.Errorf("warnings %+v", logs.All())
	}
}

// TestReadPageBudget: a page stops before the line that would take its
// bytes past the budget, but always holds its first line, however long.
func TestReadPageBudget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	writeFile(t, p, "aaaa\nbb\ncccccc\nd\neeeeeeeeee\nf\n")
	r := &refresher{t: t, path: p}
	if _, err := r.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		offset int
		desc   bool
		budget int64
		want   []string
	}{
		{0, false, 6, []string{"aaaa", "bb"}},
		{0, false, 5, []string{"aaaa"}},
		{1, false, 9, []string{"bb", "cccccc", "d"}},
		{4, false, 3, []string{"eeeeeeeeee"}}, // over the budget alone
		{0, true, 11, []string{"f", "eeeeeeeeee"}},
		{0, false, 0, []string{"aaaa", "bb", "cccccc", "d", "eeeeeeeeee", "f"}},
	} {
		var got []string
		err := r.idx.ReadPage(f, c.offset, 10, c.desc, c.budget, func(_ int64, b []byte) error {
			got = append(got, string(b))
			return nil
		})
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("page at %d (desc %v) within %d bytes: %q, %v; want %q", c.offset, c.desc, c.budget, got, err, c.want)
		}
	}
}
