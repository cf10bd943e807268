package lineindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap"
)

// TestCache: Get does not open a file whose index describes the version a
// listing gave; Read refreshes and holds the index; a Stale error from
// Read's callback drops it, so that the next use scans the file again;
// Prune and Forget drop entries.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeFile(t, a, "1\n2\n")
	writeFile(t, b, "3\n")
	var scans []Scan
	c := NewCache((*testIndex).add, func(sc Scan) { scans = append(scans, sc) }, zap.NewNop(), "test")
	ctx := context.Background()
	stat := func(p string) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	get := func(p string) *testIndex {
		t.Helper()
		x, err := c.Get(ctx, p, stat(p))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := get(a)
	if get(a) != x || len(scans) != 1 || !scans[0].Full || scans[0].Bytes != 4 {
		t.Fatalf("second Get of an unchanged file: scans %+v", scans)
	}

	appendFile(t, a, "3\n")
	f, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read := func(fn func(x *testIndex) error) error {
		return c.Read(ctx, a, f, fn)
	}
	changed := errors.New("changed")
	err = read(func(x *testIndex) error {
		if !slices.Equal(x.all, []string{"1", "2", "3"}) {
			t.Errorf("index %q", x.all)
		}
		return Stale(changed)
	})
	if err != changed || len(scans) != 2 || scans[1].Full || scans[1].Bytes != 2 {
		t.Fatalf("Read after growth: %v, scans %+v", err, scans)
	}
	if err := read(func(*testIndex) error { return nil }); err != nil || len(scans) != 3 || !scans[2].Full {
		t.Fatalf("Read after Stale: %v, scans %+v", err, scans)
	}

	get(b)
	if c.Len() != 2 {
		t.Fatalf("%d entries, want 2", c.Len())
	}
	c.Prune(func(p string) bool { return p == b })
	if c.Len() != 1 {
		t.Fatalf("after Prune: %d entries, want 1", c.Len())
	}
	c.Forget(a)
	if c.Len() != 0 {
		t.Fatalf("after Forget: %d entries, want 0", c.Len())
	}
}
