package lineindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// TestCacheBudget: over its budget, a Cache drops its least recently used
// index, not one just read; a dropped index is scanned
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
	c := NewCache((*testIndex).add, func(sc Scan) {
		if sc.Full {
			scans = append(scans, "scan")
		}
	}, zap.NewNop(), "test")
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
	c.tuning.Budget = 2*one + one/2 // room for two

	get(b)
	get(a) // a is now more recent than b
	get(c3)
	if c.holds(b) || !c.holds(a) || !c.holds(c3) || c.Len() != 2 || c.Used() > 2*one+one/2 {
		t.Fatalf("over budget: holds a %v, b %v, c %v; %d entries using %d", c.holds(a), c.holds(b), c.holds(c3), c.Len(), c.Used())
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
	err = c.Read(ctx, a, f, func(x *testIndex) error {
		get(b)
		get(c3) // a is now the least recently used
		if c.holds(a) {
			t.Fatal("a not dropped")
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

// Used is the memory c's indexes take, as they estimate it.
func (c *Cache[T, P]) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// holds reports whether c has an index of path.
func (c *Cache[T, P]) holds(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[path] != nil
}

// TestCacheBudgetReloads: an index dropped for the budget is loaded from
// its persisted copy on its next use, not scanned again.
func TestCacheBudgetReloads(t *testing.T) {
	e := newPersistEnv(t)
	other := filepath.Join(filepath.Dir(e.path), "other.jsonl")
	writeFile(t, other, e.lines(10))
	c := e.openCache("v1")
	c.tuning.Budget = 1 // an index at a time
	c.Close()           // saves in line
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
