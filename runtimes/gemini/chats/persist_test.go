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
		return s.fullScans.Load() != 0
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

// TestFactsSize: factsSize is the length of AppendFacts' output, which
// takes one allocation (not a doubling per MB of a big file's facts), for
// every test file and a big one.
func TestFactsSize(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	paths := []string{writeBig(t, home, ws, "0b000000-0000-4000-8000-000000000001", 1<<20)}
	for _, name := range []string{"session.jsonl", "reset.jsonl", "phantom.jsonl", "load.jsonl", "resumed.jsonl"} {
		paths = append(paths, filepath.Join("testdata", name))
	}
	for _, p := range paths {
		x, _ := indexView(t, p, nil)
		if len(x.recs) == 0 {
			t.Fatalf("%s: no records", p)
		}
		if b, n := x.AppendFacts(nil), x.factsSize(); len(b) != n {
			t.Errorf("%s: %d bytes of facts, factsSize %d", p, len(b), n)
		}
		// Against a buffer of the size (what else AppendFacts allocates):
		// one allocation more, two under -race.
		buf := make([]byte, 0, x.factsSize())
		sized := testing.AllocsPerRun(3, func() { x.AppendFacts(buf) })
		if a := testing.AllocsPerRun(3, func() { x.AppendFacts(nil) }); a > sized+2 {
			t.Errorf("%s: AppendFacts made %v allocations, %v into a buffer of its size", p, a, sized)
		}
	}
}

// TestReadFactsAllocs: facts are read back into the view they were written
// from with a few allocations in all, none per record (a string and lists
// each were most of a restart's ReadFacts); cut short anywhere, they are
// refused, never read wrong or a panic.
func TestReadFactsAllocs(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	p := writeBig(t, home, ws, "0b000000-0000-4000-8000-000000000001", 1<<20)
	x, want := indexView(t, p, nil)
	facts := x.AppendFacts(nil)
	y := &index{Index: x.Index}
	if err := y.ReadFacts(facts); err != nil {
		t.Fatal(err)
	}
	sameView(t, "read back", y.snapshot(p), want)
	if a := testing.AllocsPerRun(3, func() { y.ReadFacts(facts) }); a > 4 {
		t.Errorf("ReadFacts of %d records made %v allocations", x.nrecs(), a)
	}
	for cut := range len(facts) {
		if (&index{Index: x.Index}).ReadFacts(facts[:cut]) == nil {
			t.Fatalf("facts cut at %d of %d read", cut, len(facts))
		}
	}
}

// TestRecHoldsNoPointers: the GC does not scan records, nor pays for
// their copies (see rec).
func TestRecHoldsNoPointers(t *testing.T) {
	var walk func(reflect.Type) bool
	walk = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				if !walk(ty.Field(i).Type) {
					return false
				}
			}
			return true
		case reflect.Array:
			return walk(ty.Elem())
		case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int,
			reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
			return true
		}
		return false
	}
	if !walk(reflect.TypeFor[rec]()) {
		t.Fatal("rec holds a pointer")
	}
}
