package gitops

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// watchReports starts a tree watch on its own inotify instance and returns
// its reports.
func watchReports(t *testing.T, f *fixture, dir string) chan Report {
	t.Helper()
	fw := fswatch.New(fswatch.Config{})
	reports := make(chan Report, 64)
	w, err := f.git.WatchTree(ctx(t), fw, dir, func(r Report) { reports <- r })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	<-w.Walked()
	return reports
}

// next waits for a report that satisfies ok.
func next(t *testing.T, reports chan Report, what string, ok func(Report) bool) Report {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case r := <-reports:
			if ok(r) {
				return r
			}
		case <-timeout:
			t.Fatalf("no report of %s", what)
		}
	}
}

func hasFile(r Report, path, change string) bool {
	for _, f := range r.Files {
		if f.Path == path && f.Change == change {
			return true
		}
	}
	return false
}

// A file written anywhere in the tree (in a folder made after the watch
// began too) is reported; git's index moving is reported as a status
// change with no file; ignored folders and .git's objects are not watched.
func TestWatchTree(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	write(t, dir, ".gitignore", "build/\n")
	write(t, dir, "build/keep", "x")
	write(t, dir, "src/deep/x.go", "package x\n")
	reports := watchReports(t, f, dir)

	write(t, dir, "src/deep/x.go", "package x // edited\n")
	r := next(t, reports, "the edit", func(r Report) bool { return hasFile(r, "src/deep/x.go", "modified") })
	if !r.Git || r.Files[0].Size != int64(len("package x // edited\n")) {
		t.Errorf("report = %+v", r)
	}

	if err := os.MkdirAll(filepath.Join(dir, "newdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	next(t, reports, "the new folder", func(r Report) bool { return r.Git })
	write(t, dir, "newdir/y.txt", "y\n")
	next(t, reports, "a file in the new folder", func(r Report) bool { return hasFile(r, "newdir/y.txt", "created") })

	if err := os.Remove(filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	next(t, reports, "the deletion", func(r Report) bool { return hasFile(r, "b.txt", "deleted") })

	// Only the index changes: the deletion staged. (`git add` of a file
	// unchanged since its commit need not write the index at all, and
	// under load it did not: CI's "no report of the index".)
	f.gitIn(dir, "rm", "-q", "--cached", "b.txt")
	next(t, reports, "the index", func(r Report) bool { return r.Git && len(r.Files) == 0 })

	// build/ is ignored: writing there reports nothing, which the next
	// report (of a file written after) proves.
	write(t, dir, "build/out.o", "obj")
	write(t, dir, "after.txt", "a\n")
	r = next(t, reports, "the file after the build", func(r Report) bool { return hasFile(r, "after.txt", "created") })
	for _, f := range r.Files {
		if filepath.Dir(f.Path) == "build" {
			t.Errorf("an ignored file was reported: %+v", f)
		}
	}
}

// Closing the watch releases every kernel watch (the instance goes with
// the last) and no report comes after.
func TestWatchTreeClose(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	before := fswatch.Instances()
	fw := fswatch.New(fswatch.Config{})
	w, err := f.git.WatchTree(ctx(t), fw, dir, func(Report) { t.Error("a report after Close") })
	if err != nil {
		t.Fatal(err)
	}
	if fswatch.Instances() != before+1 {
		t.Fatalf("instances %d, want %d", fswatch.Instances(), before+1)
	}
	w.Close() // while its first walk may still run
	write(t, dir, "a.txt", "after close\n")
	if got := fswatch.Instances(); got != before {
		t.Errorf("instances after close %d, want %d", got, before)
	}
}
