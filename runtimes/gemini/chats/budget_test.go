package chats

import (
	"context"
	"testing"
)

// TestStoreBoundedByCacheBudget: the views a Store keeps go with the
// indexes its cache drops for its budget (a view holds its index), and a
// session whose index was dropped is read as before, replayed again.
func TestStoreBoundedByCacheBudget(t *testing.T) {
	f := newFixture(t)
	s := f.s
	s.cache.Budget(1) // one index at a time
	want := sessionIDs(t, s, f.ws)
	if len(want) != 2 {
		t.Fatalf("List = %v, want sessions A and R", want)
	}
	s.mu.Lock()
	views := len(s.views)
	s.mu.Unlock()
	if n := s.cache.Len(); n != 1 || views > n {
		t.Fatalf("%d views kept for %d indexes cached, want at most 1", views, n)
	}
	scans := s.fullScans.Load()
	for range 2 {
		for _, id := range want {
			page, total, err := s.Messages(context.Background(), f.ws, id, 0, 100, false)
			if err != nil || len(page) != total || total == 0 {
				t.Fatalf("Messages(%s): %d of %d, %v", id, len(page), total, err)
			}
		}
	}
	if s.fullScans.Load() == scans {
		t.Fatal("no index was replayed again: none was dropped")
	}
}
