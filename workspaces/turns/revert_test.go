package turns

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// turn runs change between two snapshots, as the engine does around an
// agent's turn.
func (f *fixture) turn(change func()) (before, after string) {
	f.t.Helper()
	before = f.snapshot()
	change()
	return before, f.snapshot()
}

func TestRevertRestoresWhatTheTurnChanged(t *testing.T) {
	f := newFixture(t)
	f.write("user.txt", "the user's own work\n") // untracked, there before the turn
	before, after := f.turn(func() {
		f.write("a.txt", "rewritten\n")
		f.write("dir/made.txt", "made\n")
		os.Remove(filepath.Join(f.dir, "b.txt"))
	})
	f.write("other.txt", "changed after the turn, not by it\n")
	indexBefore, _ := os.ReadFile(filepath.Join(f.dir, ".git", "index"))

	res, err := f.repo.Revert(context.Background(), before, after, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "b.txt", "dir/made.txt"}; !reflect.DeepEqual(res.Files, want) {
		t.Fatalf("files = %v, want %v", res.Files, want)
	}
	if got := f.read("a.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := f.read("b.txt"); got != "bee\n" {
		t.Errorf("b.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "dir", "made.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dir/made.txt still there: %v", err)
	}
	if f.read("user.txt") != "the user's own work\n" || f.read("other.txt") != "changed after the turn, not by it\n" {
		t.Error("a file the turn did not change was touched")
	}
	if indexAfter, _ := os.ReadFile(filepath.Join(f.dir, ".git", "index")); string(indexAfter) != string(indexBefore) {
		t.Error("the revert wrote the user's index")
	}
}

func TestRevertRefusesFilesChangedSinceUnlessForced(t *testing.T) {
	f := newFixture(t)
	before, after := f.turn(func() {
		f.write("a.txt", "by the agent\n")
		f.write("b.txt", "also by the agent\n")
	})
	f.write("a.txt", "then by the user\n")

	dry, err := f.repo.Revert(context.Background(), before, after, false, true)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if !reflect.DeepEqual(dry.Conflicts, []string{"a.txt"}) || f.read("b.txt") != "also by the agent\n" {
		t.Fatalf("dry run: conflicts %v, or it changed b.txt", dry.Conflicts)
	}

	_, err = f.repo.Revert(context.Background(), before, after, false, false)
	var conflict *ConflictError
	if !errors.As(err, &conflict) || !reflect.DeepEqual(conflict.Paths, []string{"a.txt"}) {
		t.Fatalf("err = %v, want a conflict on a.txt", err)
	}
	if f.read("a.txt") != "then by the user\n" || f.read("b.txt") != "also by the agent\n" {
		t.Fatal("a refused revert changed files")
	}

	if _, err := f.repo.Revert(context.Background(), before, after, true, false); err != nil {
		t.Fatalf("forced: %v", err)
	}
	if f.read("a.txt") != "one\ntwo\nthree\n" || f.read("b.txt") != "bee\n" {
		t.Fatalf("forced revert: a=%q b=%q", f.read("a.txt"), f.read("b.txt"))
	}
}

func TestALaterTurnIsAConflict(t *testing.T) {
	f := newFixture(t)
	b1, a1 := f.turn(func() { f.write("a.txt", "turn one\n") })
	f.turn(func() { f.write("a.txt", "turn two\n") })
	_, err := f.repo.Revert(context.Background(), b1, a1, false, false)
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("err = %v, want a conflict", err)
	}
}

func TestARevertCanBeReverted(t *testing.T) {
	f := newFixture(t)
	if err := os.Chmod(filepath.Join(f.dir, "a.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, after := f.turn(func() {
		f.write("a.txt", "by the agent\n")
		if err := os.Symlink("a.txt", filepath.Join(f.dir, "link")); err != nil {
			t.Fatal(err)
		}
	})
	undo, err := f.repo.Revert(context.Background(), before, after, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(f.dir, "a.txt")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("a.txt's mode not restored: %v %v", fi.Mode(), err)
	}
	if undo.Before != after || undo.After != before {
		t.Fatalf("the revert's snapshots are %s→%s, want %s→%s", undo.Before, undo.After, after, before)
	}
	if _, err := f.repo.Revert(context.Background(), undo.Before, undo.After, false, false); err != nil {
		t.Fatal(err)
	}
	if f.read("a.txt") != "by the agent\n" {
		t.Fatalf("a.txt = %q after the revert of the revert", f.read("a.txt"))
	}
	if target, err := os.Readlink(filepath.Join(f.dir, "link")); err != nil || target != "a.txt" {
		t.Fatalf("link = %q, %v", target, err)
	}
}

func TestRevertDoesNotWriteThroughASymlinkOutOfTheRepository(t *testing.T) {
	f := newFixture(t)
	outside := canon(t, t.TempDir())
	before, after := f.turn(func() { f.write("sub/x.txt", "x\n") })
	// Since the turn, "sub" became a link to a folder outside.
	if err := os.RemoveAll(filepath.Join(f.dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := f.repo.Revert(context.Background(), before, after, true, false)
	if err == nil {
		t.Fatal("revert through a symlink out of the repository succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err != nil {
		t.Fatalf("the file outside was removed: %v", err)
	}
}

func TestStoreKeepsRecordsAcrossInstances(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := NewStore(dir)
	if n, err := s.Add("sess-1", Record{Turn: 1, Before: "t0", After: "t1"}); err != nil || n != 1 {
		t.Fatalf("add: %d %v", n, err)
	}
	if n, err := s.Add("sess-1", Record{Before: "t1", After: "t0", Reverts: 1}); err != nil || n != 2 {
		t.Fatalf("add revert: %d %v", n, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "sess-1.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record file: %v %v", fi, err)
	}
	recs, err := NewStore(dir).List("sess-1")
	want := []Record{{Turn: 1, Before: "t0", After: "t1"}, {Turn: 2, Before: "t1", After: "t0", Reverts: 1}}
	if err != nil || !reflect.DeepEqual(recs, want) {
		t.Fatalf("records = %+v %v", recs, err)
	}
	if _, err := s.List("../escape"); !errors.Is(err, ErrBadSession) {
		t.Fatalf("a session id with a path: %v", err)
	}
}

// A revert is all or nothing: when one file cannot be restored (here b.txt,
// which the user has made a folder with a file in it since the turn), the
// files restored before it are put back as they were, and the error says
// which file failed.
func TestARevertThatFailsHalfwayChangesNothing(t *testing.T) {
	f := newFixture(t)
	before, after := f.turn(func() {
		f.write("a.txt", "by the agent\n")
		f.write("b.txt", "also by the agent\n")
		f.write("c.txt", "added by the agent\n")
	})
	// a.txt is restored first (paths come sorted), then b.txt fails.
	if err := os.Remove(filepath.Join(f.dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	f.write("b.txt/inside.txt", "the user's\n")
	_, err := f.repo.Revert(context.Background(), before, after, true, false)
	var partial *PartialError
	if !errors.As(err, &partial) || partial.Path != "b.txt" || partial.PutBack != 1 || len(partial.NotPutBack) != 0 {
		t.Fatalf("err = %#v, want a PartialError on b.txt with a.txt put back", err)
	}
	if got := f.read("a.txt"); got != "by the agent\n" {
		t.Errorf("a.txt = %q after a failed revert, want the turn's %q", got, "by the agent\n")
	}
	if f.read("c.txt") != "added by the agent\n" || f.read("b.txt/inside.txt") != "the user's\n" {
		t.Error("a failed revert changed files after the one that failed")
	}
	if entries, _ := os.ReadDir(f.dir); len(entries) != 5 { // .git .gitignore a.txt b.txt c.txt
		t.Errorf("a failed revert left files behind: %v", entries)
	}
}
