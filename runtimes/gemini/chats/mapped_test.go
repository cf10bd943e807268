package chats

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// TestRestartedIndexGrows: a restarted Store reads its first page from the
// saved index, mapped (seen in /proc/self/maps), with its tables in place;
// the file grows, and the index extended from the loaded one (which the
// cache then drops) serves every page as a replay of the file does,
// collections after the drop included; once the Store is gone, the saved
// index is unmapped.
func TestRestartedIndexGrows(t *testing.T) {
	home, ws, cache := t.TempDir(), t.TempDir(), t.TempDir()
	const id = "0b000000-0000-4000-8000-000000000001"
	p := writeBig(t, home, ws, id, 2<<20) // persisted from 1 MB
	ctx := context.Background()
	page := func(s *Store) []rpc.Message {
		t.Helper()
		msgs, _, err := s.Messages(ctx, ws, id, 0, 30, true)
		if err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	first := New(home, nil).WithCacheDir(cache)
	page(first)
	first.Close() // saved

	saved, err := filepath.Glob(filepath.Join(cache, "*.idx"))
	if err != nil || len(saved) != 1 {
		t.Fatalf("saved %v, %v", saved, err)
	}
	s := New(home, nil).WithCacheDir(cache)
	page(s)
	if !mapped(t, saved[0]) {
		t.Fatal("the saved index is not mapped after a restart")
	}
	appendFile(t, p, `{"id":"late","timestamp":"2026-11-23T00:00:05.000Z","type":"user","content":[{"text":"late prompt"}]}
{"id":"a0","timestamp":"2026-11-23T00:00:06.000Z","type":"gemini","content":"answer 0, edited","model":"gemini-2.5-flash"}
{"$set":{"lastUpdated":"2026-11-23T00:00:06.000Z"}}
`)
	got := page(s)
	for range 3 {
		runtime.GC()
	}
	again := page(s)
	if n := s.Stats().FullScans; n != 0 {
		t.Fatalf("%d replays: the saved index was not used and extended", n)
	}
	replay := New(home, nil)
	defer replay.Close()
	want := page(replay)
	if len(want) == 0 || want[0].ID != "late" {
		t.Fatalf("replay's newest message: %v", ids(want))
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(again, want) {
		t.Fatalf("extended restarted index: %v, then %v; a replay: %v", ids(got), ids(again), ids(want))
	}
	s.Close()
	deadline := time.Now().Add(waitTimeout)
	for mapped(t, saved[0]) {
		if time.Now().After(deadline) {
			t.Fatal("the saved index is still mapped once its Store is gone")
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// mapped reports whether the file at path is mapped into this process.
func mapped(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatalf("cannot see this process's mappings: %v", err)
	}
	return strings.Contains(string(b), path)
}
