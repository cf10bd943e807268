package turns

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// objectPath is where an object id lives in the fixture's private store.
func (f *fixture) objectPath(id string) string {
	return filepath.Join(f.home, "objects", storeName(f.dir), id[:2], id[2:])
}

// blobID is git's id of content.
func (f *fixture) blobID(content string) string {
	f.t.Helper()
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// Prune forgets a session whose last turn is older than KeepFor, removes
// the objects only its snapshots reached, and keeps everything a kept
// session's turns need: their diff and their revert still work.
func TestPruneKeepsWhatKeptRecordsReach(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := NewStore(filepath.Join(f.home, "sessions"))
	b1, a1 := f.turn(func() { f.write("a.txt", "kept turn\n") })
	if _, err := st.Add("kept", Record{Dir: f.dir, Before: b1, After: a1}); err != nil {
		t.Fatal(err)
	}
	b2, a2 := f.turn(func() { f.write("old.txt", "only the old session's\n") })
	if _, err := st.Add("old", Record{Dir: f.dir, Before: b2, After: a2}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-40 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(f.home, "sessions", "old.json"), old, old); err != nil {
		t.Fatal(err)
	}
	oldBlob, keptBlob := f.objectPath(f.blobID("only the old session's\n")), f.objectPath(f.blobID("kept turn\n"))
	for _, p := range []string{oldBlob, keptBlob, f.objectPath(a2)} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the snapshot did not write %s to the private store: %v", p, err)
		}
	}
	s := f.repo.s
	res, err := s.Prune(ctx, st, PruneConfig{Grace: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 1 || res.Objects == 0 {
		t.Fatalf("prune = %+v, want the old session expired and its objects removed", res)
	}
	if recs, _ := st.List("old"); len(recs) != 0 {
		t.Errorf("the old session's records are still there: %+v", recs)
	}
	for _, p := range []string{oldBlob, f.objectPath(a2)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s, which only the expired session reached, is still there (%v)", p, err)
		}
	}
	if _, err := os.Stat(keptBlob); err != nil {
		t.Errorf("the kept turn's blob was removed: %v", err)
	}
	d, err := f.repo.Diff(ctx, b1, a1)
	if err != nil || !strings.Contains(d.Unified, "+kept turn") {
		t.Fatalf("the kept turn's diff after the prune: %v\n%s", err, d.Unified)
	}
	if _, err := f.repo.Revert(ctx, b1, a1, false, false); err != nil || f.read("a.txt") != "one\ntwo\nthree\n" {
		t.Fatalf("the kept turn's revert after the prune: %v, a.txt %q", err, f.read("a.txt"))
	}
}

// An object written within the grace is kept though nothing reaches it (a
// snapshot under way has no record yet); a store whose repository is gone
// is emptied.
func TestPruneSparesRecentObjectsAndEmptiesGoneRepositories(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := NewStore(filepath.Join(f.home, "sessions"))
	f.write("fresh.txt", "a snapshot under way\n")
	tree := f.snapshot()
	res, err := f.repo.s.Prune(ctx, st, PruneConfig{})
	if err != nil || res.Objects != 0 {
		t.Fatalf("prune with the default grace = %+v, %v; want nothing removed", res, err)
	}
	if _, err := os.Stat(f.objectPath(tree)); err != nil {
		t.Fatalf("the fresh snapshot's tree was removed: %v", err)
	}
	if _, err := st.Add("s", Record{Dir: f.dir, Before: tree, After: tree}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(f.dir); err != nil {
		t.Fatal(err)
	}
	if _, err := f.repo.s.Prune(ctx, st, PruneConfig{Grace: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(f.home, "objects", storeName(f.dir), "??", "*"))
	if len(left) != 0 {
		t.Errorf("objects left in the store of a repository that is gone: %v", left)
	}
}
