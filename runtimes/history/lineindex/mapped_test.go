package lineindex

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"go.uber.org/zap"
)

// rawIndex keeps its facts as given: in place in a mapped saved index, as
// Gemini's tables are read.
type rawIndex struct {
	plain
	facts []byte
}

func (x *rawIndex) add(b []byte) bool { return true }

func (x *rawIndex) Merge(y *rawIndex) {}

func (x *rawIndex) AppendFacts(b []byte) []byte { return append(b, "the facts of a saved index"...) }

func (x *rawIndex) ReadFacts(b []byte) error { x.facts = b; return nil }

// waitMappings runs the collector until n saved indexes are mapped, or
// fails after a deadline: a cleanup runs some time after a collection.
func waitMappings(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for liveMappings.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d saved indexes mapped, want %d", liveMappings.Load(), n)
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// TestMappingLifetime: a restarted cache maps the saved index, keeps it
// mapped while an index made from it can be read (one extended after the
// file grew, once the cache and the index it extended are dropped), and
// unmaps it once none is left. Not parallel: it counts every mapping.
func TestMappingLifetime(t *testing.T) {
	e := newPersistEnv(t)
	open := func() *Cache[rawIndex, *rawIndex] {
		return NewCache((*rawIndex).add, nil, zap.NewNop(), "test").Persist(e.dir, "v1").Tune(e.tuning)
	}
	get := func(c *Cache[rawIndex, *rawIndex]) *rawIndex {
		t.Helper()
		fi, err := os.Stat(e.path)
		if err != nil {
			t.Fatal(err)
		}
		x, err := c.Get(context.Background(), e.path, fi)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	c := open()
	get(c)
	c.Close() // saved
	waitMappings(t, 0)

	c = open()
	if x := get(c); x.saved == nil || string(x.facts) != "the facts of a saved index" {
		t.Fatalf("restart: facts %q, mapped %v", x.facts, x.saved != nil)
	}
	waitMappings(t, 1)

	// The file grows: the cache extends a copy of the loaded index, which
	// keeps reading the mapped facts once the first is gone.
	f, err := os.OpenFile(e.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(e.lines(20)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	grown := get(c)
	c.Forget(e.path) // the cache drops it, and its saved file
	c = nil
	for range 3 {
		runtime.GC()
	}
	if got := liveMappings.Load(); got != 1 {
		t.Errorf("%d saved indexes mapped while an extended index can read one", got)
	}
	if string(grown.facts) != "the facts of a saved index" || len(grown.Lines()) != 320 {
		t.Errorf("extended index: facts %q, %d lines, want 320", grown.facts, len(grown.Lines()))
	}
	runtime.KeepAlive(grown)
	waitMappings(t, 0)
}
