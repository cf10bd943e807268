package turns

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSnapshotLeavesTheUsersRepositoryUntouched(t *testing.T) {
	f := newFixture(t)
	// A user mid-work: something staged, something modified, an untracked
	// file, an ignored one, and a stash.
	f.write("a.txt", "one\nTWO\nthree\n")
	f.git("stash", "-q")
	f.write("a.txt", "one\ntwo\nthree\nfour\n")
	f.git("add", "a.txt")
	f.write("b.txt", "bee\nbuzz\n")
	f.write("new.txt", "new\n")
	f.write("debug.log", "ignored\n")
	before := f.userState()

	start := f.snapshot()
	f.write("c.txt", "agent\n")
	end := f.snapshot()

	// The agent's file goes again, so that the status compared is the user's.
	if err := os.Remove(filepath.Join(f.dir, "c.txt")); err != nil {
		t.Fatal(err)
	}
	if after := f.userState(); after != before {
		t.Fatalf("the user's repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if start == end {
		t.Fatal("a new file did not change the snapshot")
	}
	// The snapshot is of the working tree, not of the user's index.
	d, err := f.repo.Diff(context.Background(), start, end)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{Path: "c.txt", Status: "added", Additions: 1}}
	if !reflect.DeepEqual(d.Files, want) {
		t.Fatalf("files = %+v, want %+v", d.Files, want)
	}
}

func TestSnapshotIsOfTheWorkingTreeAndRespectsGitignore(t *testing.T) {
	f := newFixture(t)
	start := f.snapshot()
	f.write("a.txt", "one\n2\nthree\n")  // modified, not staged
	f.write("debug.log", "noise\n")      // ignored
	f.write("dir/new.go", "package x\n") // untracked
	if err := os.Remove(filepath.Join(f.dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	end := f.snapshot()
	d, err := f.repo.Diff(context.Background(), start, end)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Path: "a.txt", Status: "modified", Additions: 1, Deletions: 1},
		{Path: "b.txt", Status: "deleted", Deletions: 1},
		{Path: "dir/new.go", Status: "added", Additions: 1},
	}
	if !reflect.DeepEqual(d.Files, want) {
		t.Fatalf("files = %+v, want %+v", d.Files, want)
	}
	for _, s := range []string{"-two", "+2", "+package x", "deleted file mode"} {
		if !strings.Contains(d.Unified, s) {
			t.Errorf("unified diff lacks %q:\n%s", s, d.Unified)
		}
	}
	if strings.Contains(d.Unified, "debug.log") || d.IsTruncated {
		t.Errorf("ignored file shown, or truncated (%v):\n%s", d.IsTruncated, d.Unified)
	}
}

func TestSnapshotInAFreshRepositoryWithoutCommitsOrIndex(t *testing.T) {
	f := newFixture(t)
	if err := os.RemoveAll(filepath.Join(f.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	f.git("init", "-q")
	r, err := New(Config{Home: f.home, Env: f.env}).Open(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	f.repo = r
	start := f.snapshot()
	f.write("a.txt", "changed\n")
	d, err := f.repo.Diff(context.Background(), start, f.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "a.txt" || d.Files[0].Status != "modified" {
		t.Fatalf("files = %+v", d.Files)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".git", "index")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an index appeared in the user's repository: %v", err)
	}
}

func TestDiffIsCappedAtALineEnd(t *testing.T) {
	f := newFixture(t)
	r, err := New(Config{Home: f.home, Env: f.env, MaxDiff: 200}).Open(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := r.Snapshot(context.Background())
	f.write("big.txt", strings.Repeat("a line of text\n", 100))
	end, _ := r.Snapshot(context.Background())
	d, err := r.Diff(context.Background(), start, end)
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsTruncated || len(d.Unified) > 200 || !strings.HasSuffix(d.Unified, "\n") {
		t.Fatalf("truncated=%v len=%d:\n%s", d.IsTruncated, len(d.Unified), d.Unified)
	}
	if d.Files[0].Additions != 100 {
		t.Fatalf("additions = %d, want 100 (counts are not capped)", d.Files[0].Additions)
	}
}

func TestBinaryFileHasNoLineCounts(t *testing.T) {
	f := newFixture(t)
	start := f.snapshot()
	f.write("img.bin", "\x00\x01\x02binary")
	d, err := f.repo.Diff(context.Background(), start, f.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{Path: "img.bin", Status: "added", Binary: true}}
	if !reflect.DeepEqual(d.Files, want) {
		t.Fatalf("files = %+v, want %+v", d.Files, want)
	}
}

func TestNonGitWorkspaceHasNoSnapshots(t *testing.T) {
	f := newFixture(t)
	plain := canon(t, t.TempDir())
	_, err := New(Config{Home: f.home, Env: append(f.env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(plain))}).Open(context.Background(), plain)
	if !errors.Is(err, ErrNotRepo) {
		t.Fatalf("err = %v, want ErrNotRepo", err)
	}
}
