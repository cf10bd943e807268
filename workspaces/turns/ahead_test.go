package turns

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/fswatch/fswatchtest"
)

// watched gives the fixture a Snapshotter that watches its repository, as
// the daemon's does, closed (and its inotify instance checked gone) when
// the test ends.
func (f *fixture) watched(t *testing.T) *Snapshotter {
	t.Helper()
	fds := fswatchtest.OpenFDs(t)
	s := New(Config{Home: f.home, Env: f.env, Watcher: fswatch.New(fswatch.Config{})})
	t.Cleanup(func() {
		s.Close()
		fswatchtest.Released(t, fds, "after the Snapshotter closed")
	})
	f.repo = f.open(t, s)
	return s
}

func (f *fixture) open(t *testing.T, s *Snapshotter) *Repo {
	t.Helper()
	r, err := s.Open(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fixture) quick(r *Repo) string {
	f.t.Helper()
	tree, err := r.SnapshotQuick(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return tree
}

func wantCounts(t *testing.T, s *Snapshotter, want Counts, when string) {
	t.Helper()
	if got := s.Counts(); got != want {
		t.Fatalf("%s: counts = %+v, want %+v", when, got, want)
	}
}

// paths lists a snapshot's files.
func (f *fixture) paths(r *Repo, tree string) []string {
	f.t.Helper()
	out, err := r.s.git(context.Background(), r.Root, r.readEnv(), "ls-tree", "-r", "--name-only", tree)
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Fields(string(out))
}

func TestSnapshotReusedWhileNothingChanged(t *testing.T) {
	f := newFixture(t)
	s := f.watched(t)
	f.write("dir/sub/untracked.txt", "not in the user's index\n")
	end := f.snapshot() // a turn's end: starts the watch
	wantCounts(t, s, Counts{Taken: 1}, "first snapshot")

	// The next turn's start, from another session's Open, as the engine
	// does: the end stands for it, and git does not run.
	start := f.quick(f.open(t, s))
	if start != end {
		t.Fatalf("start %s, want the last end %s", start, end)
	}
	wantCounts(t, s, Counts{Taken: 1, Reused: 1}, "start of the next turn")

	// A turn that changed nothing ends on its start, again without git.
	if again := f.snapshot(); again != end {
		t.Fatalf("end of an idle turn %s, want %s", again, end)
	}
	wantCounts(t, s, Counts{Taken: 1, Reused: 2}, "end of an idle turn")

	// Reading files is no change.
	f.read("dir/sub/untracked.txt")
	if again := f.quick(f.repo); again != end {
		t.Fatalf("a read moved the snapshot: %s, want %s", again, end)
	}
}

// TestChangeBetweenTurnsIsNotMissed: whatever changes between one turn's
// end and the next one's start (the user, a build, another program) is in
// the next start, so that the next turn's diff is only the next turn's
// and its revert does not undo it.
func TestChangeBetweenTurnsIsNotMissed(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(f *fixture)
		want   []File // the diff from the last end to the next start
	}{
		{"a tracked file edited", func(f *fixture) { f.write("a.txt", "one\nTWO\nthree\n") },
			[]File{{Path: "a.txt", Status: "modified", Additions: 1, Deletions: 1}}},
		{"an untracked file made", func(f *fixture) { f.write("new.txt", "new\n") },
			[]File{{Path: "new.txt", Status: "added", Additions: 1}}},
		{"a file made in a folder made", func(f *fixture) { f.write("x/y/z.txt", "deep\n") },
			[]File{{Path: "x/y/z.txt", Status: "added", Additions: 1}}},
		{"a file in a watched subfolder", func(f *fixture) { f.write("dir/sub/more.txt", "more\n") },
			[]File{{Path: "dir/sub/more.txt", Status: "added", Additions: 1}}},
		{"a file removed", func(f *fixture) { f.remove("b.txt") },
			[]File{{Path: "b.txt", Status: "deleted", Deletions: 1}}},
		{"a folder renamed", func(f *fixture) { f.rename("dir", "moved") },
			[]File{{Path: "dir/sub/kept.txt", Status: "deleted", Deletions: 1}, {Path: "moved/sub/kept.txt", Status: "added", Additions: 1}}},
		{"made executable", func(f *fixture) { f.chmod("a.txt", 0o755) },
			[]File{{Path: "a.txt", Status: "modified"}}},
		{"a .gitignore no longer ignores", func(f *fixture) { f.write(".gitignore", "# none\n") },
			[]File{{Path: ".gitignore", Status: "modified", Additions: 1, Deletions: 1}, {Path: "debug.log", Status: "added", Additions: 1}, {Path: "logs/old.log", Status: "added", Additions: 1}}},
		{"info/exclude ignores", func(f *fixture) { f.write(".git/info/exclude", "a.txt\nb.txt\n") },
			nil}, // tracked files stay: the diff is empty, but git ran
		{"a file in a folder only just watched", func(f *fixture) {
			// Made, snapshotted (which watches the new folder), changed
			// again: the second change is in the folder the watch added.
			f.write("later/one.txt", "one\n")
			f.quick(f.repo)
			f.write("later/two.txt", "two\n")
		}, []File{{Path: "later/one.txt", Status: "added", Additions: 1}, {Path: "later/two.txt", Status: "added", Additions: 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("dir/sub/kept.txt", "kept\n")
			f.write("debug.log", "ignored\n")
			f.write("logs/old.log", "ignored folder\n")
			s := f.watched(t)
			end := f.snapshot()
			c.change(f)
			start := f.quick(f.repo)
			if got := s.Counts(); got.Reused != 0 {
				t.Fatalf("the last snapshot was reused after the change: %+v", got)
			}
			// The same tree as a snapshot of its own (no watch, no kept
			// index) makes: git read at least all that changed.
			alone, err := New(Config{Home: t.TempDir(), Env: f.env}).Open(context.Background(), f.dir)
			if err != nil {
				t.Fatal(err)
			}
			if want, err := alone.Snapshot(context.Background()); err != nil || want != start {
				t.Fatalf("start %s, a snapshot of its own %s (%v); counts %+v", start, want, err, s.Counts())
			}
			d, err := f.repo.Diff(context.Background(), end, start)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Files, c.want) && !(len(d.Files) == 0 && c.want == nil) {
				t.Fatalf("files = %+v, want %+v", d.Files, c.want)
			}
			// And once the turn ended (which watches the tree again if the
			// change made it lose track), the end stands for the next start.
			if end := f.snapshot(); end != start {
				t.Fatalf("end %s, want the start %s (nothing changed)", end, start)
			}
			if again := f.quick(f.repo); again != start || s.Counts().Reused < 1 {
				t.Fatalf("after the change: %s (want %s), counts %+v", again, start, s.Counts())
			}
		})
	}
}

// TestChangeRightAfterTheSnapshotIsNotMissed: a file written the moment git
// has read the tree (an agent's first tool call racing the snapshot, or the
// user saving) is after the snapshot, and the next look sees it.
func TestChangeRightAfterTheSnapshotIsNotMissed(t *testing.T) {
	f := newFixture(t)
	s := f.watched(t)
	s.afterTake = func() {
		s.afterTake = nil
		f.write("raced.txt", "written as git finished\n")
	}
	end := f.snapshot()
	if slices.Contains(f.paths(f.repo, end), "raced.txt") {
		t.Fatal("the test's write was not after the snapshot")
	}
	start := f.quick(f.repo)
	if !slices.Contains(f.paths(f.repo, start), "raced.txt") {
		t.Fatalf("the next snapshot missed a write made after the last one (counts %+v)", s.Counts())
	}
}

// TestWatchOverflowMeansChanged: when the inotify instance loses events
// (its queue overflowed), nothing is vouched for: the next snapshot runs
// git, and the one after is reused again.
func TestWatchOverflowMeansChanged(t *testing.T) {
	f := newFixture(t)
	s := f.watched(t)
	end := f.snapshot()
	s.cfg.Watcher.Fail(fswatch.ErrOverflow)
	if start := f.quick(f.repo); start != end {
		t.Fatalf("start %s, want %s (nothing changed)", start, end)
	}
	wantCounts(t, s, Counts{Taken: 2}, "after an overflow")
	f.quick(f.repo)
	wantCounts(t, s, Counts{Taken: 2, Reused: 1}, "after the overflow was looked at")
}

func TestSnapshotsOfTwoSessionsInOneRepository(t *testing.T) {
	f := newFixture(t)
	s := f.watched(t)
	a, b := f.repo, f.open(t, s)
	end := f.snapshot() // a's turn ended
	f.write("by-b.txt", "b's turn\n")
	// b's turn ends while a waits: a's next start is b's end, not a's.
	bEnd, err := b.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if bEnd == end {
		t.Fatal("b's end missed b's change")
	}
	if aStart := f.quick(a); aStart != bEnd {
		t.Fatalf("a's start %s, want b's end %s", aStart, bEnd)
	}

	// At once: one session writes file after file, each followed by a
	// snapshot that must hold it, while the other snapshots without end.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if _, err := b.SnapshotQuick(ctx); err != nil && ctx.Err() == nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range 10 {
		name := filepath.Join("many", strings.Repeat("f", i+1)+".txt")
		f.write(name, "file\n")
		tree := f.quick(a)
		if !slices.Contains(f.paths(a, tree), name) {
			t.Errorf("snapshot after %s lacks it", name)
		}
	}
	cancel()
	wg.Wait()
}

// TestPrivateIndex: kept between snapshots (so a second snapshot hashes
// only what changed), mode 0600, never the user's; a repository made
// again at the same path is snapshotted right despite the index kept.
func TestPrivateIndex(t *testing.T) {
	f := newFixture(t)
	f.write("untracked.txt", "u\n")
	before := f.userState()
	f.snapshot()
	index := filepath.Join(f.home, "index", storeName(f.dir))
	fi, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("private index mode %v, want 0600", fi.Mode().Perm())
	}
	// It holds the untracked file already: it is not hashed again.
	out, err := f.repo.s.git(context.Background(), f.dir, f.repo.env(index), "ls-files", "--", "untracked.txt")
	if err != nil || strings.TrimSpace(string(out)) != "untracked.txt" {
		t.Fatalf("private index lacks the untracked file: %q %v", out, err)
	}
	f.snapshot()
	if after := f.userState(); after != before {
		t.Fatalf("the user's repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// The repository made again: the index names objects that are gone.
	if err := os.RemoveAll(filepath.Join(f.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	f.git("init", "-q")
	f.write("a.txt", "remade\n")
	tree := f.snapshot()
	got := f.paths(f.repo, tree)
	if want := []string{".gitignore", "a.txt", "b.txt", "untracked.txt"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}

// TestLeftoverIndexLock: a git killed mid-snapshot (the daemon's end)
// leaves the private index's lock; the next snapshot does not fail on it.
func TestLeftoverIndexLock(t *testing.T) {
	f := newFixture(t)
	f.snapshot()
	lock := filepath.Join(f.home, "index", storeName(f.dir)+".lock")
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f.write("c.txt", "c\n")
	if !slices.Contains(f.paths(f.repo, f.snapshot()), "c.txt") {
		t.Fatal("snapshot after a left lock lacks the new file")
	}
}

func TestUnwatchableTreeStillSnapshots(t *testing.T) {
	f := newFixture(t)
	f.write("vendor/lib/.git", "gitdir: elsewhere\n") // a repository inside
	s := f.watched(t)
	first := f.snapshot()
	if again := f.quick(f.repo); again != first {
		t.Fatalf("%s, want %s", again, first)
	}
	wantCounts(t, s, Counts{Taken: 2}, "a tree with a repository inside")
}

func (f *fixture) remove(rel string) {
	f.t.Helper()
	if err := os.Remove(filepath.Join(f.dir, rel)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) rename(from, to string) {
	f.t.Helper()
	if err := os.Rename(filepath.Join(f.dir, from), filepath.Join(f.dir, to)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) chmod(rel string, mode os.FileMode) {
	f.t.Helper()
	if err := os.Chmod(filepath.Join(f.dir, rel), mode); err != nil {
		f.t.Fatal(err)
	}
}

// TestFolderNoLongerIgnoredIsWatched: a folder git ignored is not watched;
// once the rules let it in, its files are in the snapshots, and a change
// to them is seen like any other.
func TestFolderNoLongerIgnoredIsWatched(t *testing.T) {
	for _, rules := range []string{".gitignore", ".git/info/exclude"} {
		t.Run(rules, func(t *testing.T) {
			f := newFixture(t)
			f.write("logs/old.log", "one\n")
			f.write(".git/info/exclude", "build/\n")
			f.write("build/out.o", "one\n")
			s := f.watched(t)
			f.snapshot()
			f.write(rules, "# nothing ignored\n")
			f.snapshot() // a turn's end: watched again under the new rules
			f.write("logs/old.log", "two\n")
			f.write("build/out.o", "two\n")
			start := f.quick(f.repo)
			// The last snapshot read only the folder the rules let in.
			wantCounts(t, s, Counts{Taken: 3, Narrowed: 1}, "after a change in a folder no longer ignored")
			// The folder the changed rules let in has its new content.
			path := map[string]string{".gitignore": "logs/old.log", ".git/info/exclude": "build/out.o"}[rules]
			out, err := f.repo.s.git(context.Background(), f.dir, f.repo.readEnv(), "cat-file", "-p", start+":"+path)
			if err != nil || string(out) != "two\n" {
				t.Fatalf("%s in the snapshot: %q, %v", path, out, err)
			}
		})
	}
}

// TestTurnStartLeavesWatchingToTheEnd: starting the watch walks the tree,
// which the start of a turn (holding the prompt) does not do; the end of
// the turn does it, and the next start reuses that end.
func TestTurnStartLeavesWatchingToTheEnd(t *testing.T) {
	f := newFixture(t)
	s := f.watched(t)
	f.quick(f.repo)
	f.quick(f.repo)
	wantCounts(t, s, Counts{Taken: 2}, "two starts, no end")
	if n := fswatch.Instances(); n != 0 {
		t.Fatalf("a turn's start started a watch (%d inotify instances)", n)
	}
	end := f.snapshot()
	if n := fswatch.Instances(); n != 1 {
		t.Fatalf("a turn's end did not start the watch (%d inotify instances)", n)
	}
	if start := f.quick(f.repo); start != end {
		t.Fatalf("start %s, want the end %s", start, end)
	}
	wantCounts(t, s, Counts{Taken: 3, Reused: 1}, "after an end")
}

// TestSnapshotReadsOnlyWhatChanged: once the private index is current and
// the watch vouches for the rest of the tree, `git add` reads only the
// folders where something changed, and the snapshot is the one a full read
// makes.
func TestSnapshotReadsOnlyWhatChanged(t *testing.T) {
	f := newFixture(t)
	for _, d := range []string{"one", "two", "two/deep"} {
		f.write(d+"/file.txt", d+"\n")
	}
	s := f.watched(t)
	f.snapshot()            // starts the watch
	f.write("x.txt", "x\n") // a change at the root: read whole
	f.snapshot()
	alone, err := New(Config{Home: t.TempDir(), Env: f.env}).Open(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, change := range []func(){
		func() { f.write("two/deep/file.txt", "changed\n") },
		func() { f.write("one/new/sub/file.txt", "a folder made in a watched one\n") },
		func() { f.remove("two/file.txt"); f.write("one/file.txt", "both\n") },
	} {
		before := s.Counts()
		change()
		got := f.quick(f.repo)
		if c := s.Counts(); c.Narrowed != before.Narrowed+1 || c.Taken != before.Taken+1 {
			t.Fatalf("change %d: counts %+v, before %+v: git did not read only the changed folders", i, c, before)
		}
		if want, err := alone.Snapshot(context.Background()); err != nil || got != want {
			t.Fatalf("change %d: snapshot %s, a full read makes %s (%v)", i, got, want, err)
		}
	}
}

// TestPrivateIndexRemovedBetweenSnapshots: an index made again (removed by
// hand, or by a prune) is current nowhere; git reads the whole tree.
func TestPrivateIndexRemovedBetweenSnapshots(t *testing.T) {
	f := newFixture(t)
	f.write("sub/one.txt", "one\n")
	s := f.watched(t)
	f.snapshot()
	f.write("untracked.txt", "not in the user's index\n")
	f.snapshot()
	if err := os.Remove(filepath.Join(f.home, "index", storeName(f.dir))); err != nil {
		t.Fatal(err)
	}
	f.write("sub/one.txt", "changed\n")
	got := f.quick(f.repo)
	if !slices.Contains(f.paths(f.repo, got), "untracked.txt") {
		t.Fatalf("a snapshot through an index made again lacks a file outside the changed folder (counts %+v)", s.Counts())
	}
}
