package chats

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A Store with a cache directory serves a big chat file after a restart
// from the index a previous Store saved, without replaying it; an index that
// is corrupt or no longer describes the file is replayed again, never
// served.
func TestPersistedIndex(t *testing.T) {
	home, ws, cache := t.TempDir(), t.TempDir(), t.TempDir()
	const id = "0b000000-0000-4000-8000-000000000001"
	p := writeBig(t, home, ws, id, 2<<20) // persisted from 1 MB
	ctx := context.Background()
	page := func(s *Store) []string {
		t.Helper()
		msgs, total, err := s.Messages(ctx, ws, id, 0, 20, true)
		if err != nil || total == 0 {
			t.Fatalf("%v, %d messages", err, total)
		}
		s.Close() // as the daemon stops: the index saves under way end
		return ids(msgs)
	}
	want := page(New(home, nil).WithCacheDir(cache))
	saved, err := filepath.Glob(filepath.Join(cache, "*.idx"))
	if err != nil || len(saved) != 1 {
		t.Fatalf("saved %v, %v", saved, err)
	}
	// scans reads a page with a new Store (a restart) and reports whether
	// it replayed the file.
	scans := func(what string) bool {
		t.Helper()
		s := New(home, nil).WithCacheDir(cache)
		if got := page(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: page %v, want %v", what, got, want)
		}
		return s.Stats().FullScans != 0
	}
	if scans("restart") {
		t.Fatal("restart replayed the file")
	}
	// Corrupt: a byte flipped in the saved index.
	b, err := os.ReadFile(saved[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(saved[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	if !scans("corrupt index") {
		t.Fatal("corrupt index served")
	}
	if scans("index saved again") {
		t.Fatal("the replay was not saved again")
	}
	// Rewritten in place near its end, size and time kept.
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("Y"), fi.Size()-40); err != nil { // inside the last $set's time
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if !scans("rewritten file") {
		t.Fatal("index of a rewritten file served")
	}
	// Replaced by a copy (another file under the same name).
	b, err = os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+".new", b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	if !scans("replaced file") {
		t.Fatal("index of a replaced file served")
	}
	// Grown: the saved index is extended, and the new record is first.
	appendFile(t, p, `{"id":"late","timestamp":"2026-11-23T01:00:00.000Z","type":"user","content":[{"text":"late"}]}`+"\n")
	want = append([]string{"late"}, want[:19]...)
	if scans("grown file") {
		t.Fatal("grown file replayed whole")
	}
}
