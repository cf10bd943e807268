package jsonl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// TestCacheBudget: over its budget, a Cache drops its least recently used
// index, not one just read, and tells OnEvict; a dropped index is scanned
// again on its next use; a page read in progress from an index dropped
// meanwhile goes on; Prune and Forget give back what their entries used.
func TestCacheBudget(t *testing.T) {
	dir := t.TempDir()
	var a, b, c3 string
	for i, p := range []*string{&a, &b, &c3} {
		*p = filepath.Join(dir, fmt.Sprintf("%c.jsonl", 'a'+i))
		writeFile(t, *p, strings.Repeat(`{"line":"of a file"}`+"\n", 1000))
	}
	var scans []string
	var evicted []string
	c := NewCache((*testIndex).add, func(sc Scan) {
		if sc.Full {
			scans = append(scans, "scan")
		}
	}, zap.NewNop(), "test").OnEvict(func(p string) { evicted = append(evicted, filepath.Base(p)) })
	ctx := context.Background()
	get := func(p string) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, p, fi); err != nil {
			t.Fatal(err)
		}
	}
	// scanned is whether p's Get scanned it (was not cached).
	scanned := func(p string) bool {
		t.Helper()
		n := len(scans)
		get(p)
		return len(scans) > n
	}
	get(a)
	one := c.Used()
	if one < 1000*16 {
		t.Fatalf("an index of 1,000 lines counts %d bytes", one)
	}
	c.Budget(2*one + one/2) // room for two

	get(b)
	get(a) // a is now more recent than b
	get(c3)
	if !slices.Equal(evicted, []string{"b.jsonl"}) || c.Len() != 2 || c.Used() > 2*one+one/2 {
		t.Fatalf("over budget: evicted %v, %d entries using %d", evicted, c.Len(), c.Used())
	}
	if scanned(a) {
		t.Fatal("the recently read index was dropped")
	}
	if !scanned(b) {
		t.Fatal("the dropped index was not scanned again")
	}

	// A page read from an index dropped while it is read.
	f, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evicted = nil
	err = c.Read(ctx, a, f, func(x *testIndex) error {
		get(b)
		get(c3) // a is now the least recently used
		if !slices.Contains(evicted, "a.jsonl") {
			t.Fatalf("a not dropped: evicted %v", evicted)
		}
		n := 0
		err := x.ReadPage(f, 990, 50, false, 0, func(_ int64, line []byte) error {
			if string(line) != `{"line":"of a file"}` {
				return fmt.Errorf("line %q", line)
			}
			n++
			return nil
		})
		if err == nil && n != 10 {
			err = fmt.Errorf("%d lines, want 10", n)
		}
		return err
	})
	if err != nil {
		t.Fatalf("page read while its index was dropped: %v", err)
	}
	if !scanned(a) {
		t.Fatal("the index dropped during a read was not scanned again")
	}

	c.Prune(func(p string) bool { return p == a })
	c.Forget(b)
	c.Forget(c3)
	if c.Len() != 0 || c.Used() != 0 {
		t.Fatalf("after Prune and Forget: %d entries using %d", c.Len(), c.Used())
	}
}

// TestCacheBudgetReloads: an index dropped for the budget is loaded from
// its persisted copy on its next use, not scanned again.
func TestCacheBudgetReloads(t *testing.T) {
	e := newPersistEnv(t)
	other := filepath.Join(filepath.Dir(e.path), "other.jsonl")
	writeFile(t, other, e.lines(10))
	c := e.openCache("v1").Budget(1) // an index at a time
	c.Close()                        // saves in line
	get := func(p string) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(context.Background(), p, fi); err != nil {
			t.Fatal(err)
		}
	}
	get(e.path)
	get(other)
	if c.Len() != 1 {
		t.Fatalf("%d entries, want 1", c.Len())
	}
	scans, read := e.fullScans, e.bytesRead
	get(e.path)
	if e.fullScans != scans || e.bytesRead != read {
		t.Fatalf("the dropped index was scanned again (%d full scans, %d bytes), not loaded", e.fullScans-scans, e.bytesRead-read)
	}
}
