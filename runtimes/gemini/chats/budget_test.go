package chats

import (
	"context"
	"testing"

	"github.com/cdevd/cdevd/runtimes/history"
)

// TestStoreBoundedByCacheBudget: the indexes a Store keeps (with their
// views) are bounded by its budget, and a session whose index was dropped
// is read as before, replayed again.
func TestStoreBoundedByCacheBudget(t *testing.T) {
	f := newFixture(t)
	s := NewWith(f.home, history.Options{Budget: 1}) // one index at a time
	t.Cleanup(func() { s.Close() })
	want := sessionIDs(t, s, f.ws)
	if len(want) != 2 {
		t.Fatalf("List = %v, want sessions A and R", want)
	}
	if n := s.Stats().Indexes; n != 1 {
		t.Fatalf("%d indexes cached, want 1", n)
	}
	scans := s.Stats().FullScans
	for range 2 {
		for _, id := range want {
			page, total, err := s.Messages(context.Background(), f.ws, id, 0, 100, false)
			if err != nil || len(page) != total || total == 0 {
				t.Fatalf("Messages(%s): %d of %d, %v", id, len(page), total, err)
			}
		}
	}
	if s.Stats().FullScans == scans {
		t.Fatal("no index was replayed again: none was dropped")
	}
}
