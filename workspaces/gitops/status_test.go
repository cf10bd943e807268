package gitops

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// The Changes tab: each kind of change lands in its list with git's
// letter, renames keep their old path, and small changes carry line counts.
func TestStatusLists(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	write(t, dir, "a.txt", "one\n2\nthree\nfour\n") // modified, unstaged
	write(t, dir, "new.txt", "fresh\n")
	f.gitIn(dir, "add", "new.txt")       // added, staged
	f.gitIn(dir, "mv", "b.txt", "c.txt") // renamed, staged
	write(t, dir, "sub dir/ü.txt", "untracked\n")
	r := f.open(dir)

	st, err := r.Status(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "main" || st.RepoRoot != dir || st.RepoName != filepath.Base(dir) {
		t.Errorf("branch %q root %q name %q", st.Branch, st.RepoRoot, st.RepoName)
	}
	if got, want := names(st.Staged), "c.txt:R,new.txt:A"; got != want && names(st.Staged) != "new.txt:A,c.txt:R" {
		t.Errorf("staged = %s, want %s", got, want)
	}
	for _, s := range st.Staged {
		if s.Path == "c.txt" && s.OldPath != "b.txt" {
			t.Errorf("rename's old path = %q", s.OldPath)
		}
	}
	if got := names(st.Unstaged); got != "a.txt:M" {
		t.Errorf("unstaged = %s", got)
	}
	if got := names(st.Untracked); got != "sub dir/:?" {
		t.Errorf("untracked = %s (a new folder shows as itself, as git status shows it)", got)
	}
	a := st.Unstaged[0]
	if a.Additions == nil || a.Deletions == nil || *a.Additions != 2 || *a.Deletions != 1 {
		t.Errorf("a.txt counts = %v/%v, want +2 -1", a.Additions, a.Deletions)
	}
	if len(st.Conflicted) != 0 || st.Conflicted == nil {
		t.Errorf("conflicted = %#v, want [] (never null)", st.Conflicted)
	}
}

// The diff viewer always asks with staged:false: a file that is only
// staged still shows its diff, an untracked file shows whole as new, and
// a file with both shows the working tree's change.
func TestDiffServesWhatTheViewerNeeds(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	write(t, dir, "a.txt", "one\ntwo\nthree\nstaged\n")
	f.gitIn(dir, "add", "a.txt")
	write(t, dir, "b.txt", "bee\nunstaged\n")
	write(t, dir, "n.txt", "brand new\n")
	r := f.open(dir)

	cases := []struct {
		path, has string
		staged    bool
		isNew     bool
	}{
		{"a.txt", "+staged", true, false},
		{"b.txt", "+unstaged", false, false},
		{"n.txt", "+brand new", false, true},
	}
	for _, c := range cases {
		res, err := r.Diff(ctx(t), rpc.GitDiffParams{Path: c.path, Staged: false})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if len(res.Diffs) != 1 {
			t.Fatalf("%s: %d diffs", c.path, len(res.Diffs))
		}
		d := res.Diffs[0]
		if d.Path != c.path || !strings.Contains(d.Diff, c.has) || d.IsStaged != c.staged || d.IsNew != c.isNew {
			t.Errorf("%s: %+v, want it to contain %q, staged %v, new %v", c.path, d, c.has, c.staged, c.isNew)
		}
	}
	// A file without changes has none (the viewer says so).
	write(t, dir, "b.txt", "bee\n")
	res, err := r.Diff(ctx(t), rpc.GitDiffParams{Path: "b.txt"})
	if err != nil || len(res.Diffs) != 0 {
		t.Errorf("unchanged file: %+v, %v", res, err)
	}
	// Every file: the working tree's diff, split by file.
	write(t, dir, "b.txt", "bee\nagain\n")
	write(t, dir, "a.txt", "changed twice\n")
	res, err = r.Diff(ctx(t), rpc.GitDiffParams{})
	if err != nil || len(res.Diffs) != 2 || res.Diffs[0].Path != "a.txt" || res.Diffs[1].Path != "b.txt" ||
		!strings.HasPrefix(res.Diffs[1].Diff, "diff --git a/b.txt b/b.txt\n") {
		t.Errorf("all diffs: %+v, %v", res, err)
	}
}

// A diff past the cap is cut at a line's end and says so.
func TestDiffCapped(t *testing.T) {
	f := newFixture(t)
	f.git = New(Config{Env: f.env, MaxDiff: 4096})
	dir := f.repo()
	write(t, dir, "a.txt", strings.Repeat("a long line of text that changes\n", 1000))
	res, err := f.open(dir).Diff(ctx(t), rpc.GitDiffParams{Path: "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Diffs[0]
	if !d.IsTruncated || len(d.Diff) > 4096 || len(d.Diff) < 1000 {
		t.Errorf("truncated %v, %d bytes", d.IsTruncated, len(d.Diff))
	}
	all, err := f.open(dir).Diff(ctx(t), rpc.GitDiffParams{})
	if err != nil || !all.Diffs[0].IsTruncated || !strings.HasSuffix(all.Diffs[0].Diff, "\n") || len(all.Diffs[0].Diff) > 4096 {
		t.Errorf("all diffs: truncated %v, %d bytes, %v", all.Diffs[0].IsTruncated, len(all.Diffs[0].Diff), err)
	}
}

// A folder outside any repository is named as such, with the words the
// app looks for.
func TestNotARepository(t *testing.T) {
	f := newFixture(t)
	dir := canon(t, t.TempDir())
	_, err := f.git.Open(ctx(t), dir)
	if !errors.Is(err, ErrNotRepo) || !strings.Contains(err.Error(), "not a git repository") {
		t.Fatalf("Open = %v", err)
	}
	if s := f.git.Summary(ctx(t), dir); s.Initialized || s.State != "none" {
		t.Errorf("summary = %+v", s)
	}
	// A repository removed under a cached root is noticed.
	repo := f.repo()
	f.open(repo)
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.git.Open(ctx(t), repo); !errors.Is(err, ErrNotRepo) {
		t.Errorf("after rm .git: %v", err)
	}
}

func TestSummary(t *testing.T) {
	f := newFixture(t)
	_, clone := f.remote()
	write(t, clone, "a.txt", "changed\n")
	write(t, clone, "u.txt", "new\n")
	write(t, clone, "s.txt", "staged\n")
	f.gitIn(clone, "add", "s.txt")
	s := f.git.Summary(ctx(t), clone)
	want := rpc.GitSummary{Initialized: true, HasRemotes: true, Branch: "main", StagedCount: 1, UnstagedCount: 1,
		UntrackedCount: 1, State: "dirty"}
	if s != want {
		t.Errorf("summary = %+v, want %+v", s, want)
	}
}
