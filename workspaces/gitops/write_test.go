package gitops

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// The wizard stages ["."]; the Changes tab stages, unstages and discards
// single files. Discarding an untracked file deletes it; a staged change
// survives a discard.
func TestStageUnstageDiscard(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	write(t, dir, "a.txt", "changed\n")
	write(t, dir, "new.txt", "new\n")
	if err := os.Remove(filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	r := f.open(dir)

	res, err := r.Stage(ctx(t), rpc.GitPathsParams{Paths: []string{"."}})
	if err != nil || !res.Success || res.StagedCount != 3 || res.UnstagedCount != 0 {
		t.Fatalf("stage . = %+v, %v", res, err)
	}
	res, err = r.Unstage(ctx(t), rpc.GitPathsParams{Paths: []string{"new.txt", "b.txt"}})
	if err != nil || !res.Success || res.StagedCount != 1 || res.UnstagedCount != 2 {
		t.Fatalf("unstage = %+v, %v", res, err)
	}
	res, err = r.Discard(ctx(t), rpc.GitPathsParams{Paths: []string{"new.txt", "b.txt", "a.txt"}})
	if err != nil || !res.Success || res.DiscardedCount != 2 {
		t.Fatalf("discard = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("the untracked file is still there: %v", err)
	}
	if got := read(t, dir, "b.txt"); got != "bee\n" {
		t.Errorf("b.txt = %q, want it restored", got)
	}
	if got := read(t, dir, "a.txt"); got != "changed\n" {
		t.Errorf("a.txt = %q: its staged change must survive a discard", got)
	}
}

// Unstaging in a repository without commits (the wizard's first steps).
func TestUnstageBeforeFirstCommit(t *testing.T) {
	f := newFixture(t)
	dir := canon(t, t.TempDir())
	f.gitIn(dir, "init", "-q")
	write(t, dir, "x.txt", "x\n")
	r := f.open(dir)
	if res, err := r.Stage(ctx(t), rpc.GitPathsParams{Paths: []string{"x.txt"}}); err != nil || res.StagedCount != 1 {
		t.Fatalf("stage = %+v, %v", res, err)
	}
	res, err := r.Unstage(ctx(t), rpc.GitPathsParams{Paths: []string{"x.txt"}})
	if err != nil || !res.Success || res.StagedCount != 0 || res.UnstagedCount != 1 {
		t.Errorf("unstage = %+v, %v", res, err)
	}
}

func TestCommit(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	r := f.open(dir)
	res, err := r.Commit(ctx(t), rpc.GitCommitParams{Message: "empty"})
	if err != nil || res.Success || !strings.Contains(res.Error, "nothing to commit") || !strings.Contains(res.Error, "no staged changes") {
		t.Errorf("commit with nothing staged = %+v, %v", res, err)
	}
	write(t, dir, "a.txt", "new\n")
	write(t, dir, "c.txt", "c\n")
	f.gitIn(dir, "add", ".")
	msg := "--amend is a message here\n\nbody"
	res, err = r.Commit(ctx(t), rpc.GitCommitParams{Message: msg})
	if err != nil || !res.Success || res.FilesCommitted != 2 || len(res.SHA) != 40 || res.Message != "--amend is a message here" {
		t.Fatalf("commit = %+v, %v", res, err)
	}
	if got := f.gitIn(dir, "log", "-1", "--format=%H %B"); got != res.SHA+" "+msg {
		t.Errorf("HEAD = %q", got)
	}
	if _, err := r.Commit(ctx(t), rpc.GitCommitParams{Message: "  "}); err == nil {
		t.Error("an empty message was accepted")
	}
}

// Two commits at once: the writes take turns, so one commits what was
// staged and the other finds nothing left, with no index.lock error.
func TestTwoCommitsAtOnce(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	write(t, dir, "a.txt", "both want this\n")
	f.gitIn(dir, "add", ".")
	var wg sync.WaitGroup
	results := make([]rpc.GitCommitResult, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.open(dir) // each its own Repo, as two requests have
			res, err := r.Commit(ctx(t), rpc.GitCommitParams{Message: "racer"})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	ok := 0
	for _, res := range results {
		if res.Success {
			ok++
		} else if !strings.Contains(res.Error, "nothing to commit") {
			t.Errorf("the other commit failed with %q, want nothing to commit", res.Error)
		}
	}
	if ok != 1 || f.gitIn(dir, "rev-list", "--count", "HEAD") != "2" {
		t.Errorf("%d commits succeeded: %+v", ok, results)
	}
}

// The user's hooks run (a commit hook that refuses is git's message), and
// a hook that hangs is ended at the timeout, its whole process group.
func TestHooksAndTimeout(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'lint failed: fix a.txt' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "x\n")
	f.gitIn(dir, "add", ".")
	res, err := f.open(dir).Commit(ctx(t), rpc.GitCommitParams{Message: "m"})
	if err != nil || res.Success || !strings.Contains(res.Error, "lint failed: fix a.txt") {
		t.Errorf("refused by the hook: %+v, %v", res, err)
	}

	pidFile := filepath.Join(t.TempDir(), "pid")
	script := "#!/bin/sh\nsleep 60 &\necho $! > " + pidFile + "\nwait\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.git = New(Config{Env: f.env, Timeout: time.Second})
	start := time.Now()
	res, err = f.open(dir).Commit(ctx(t), rpc.GitCommitParams{Message: "m"})
	if res.Success || !strings.Contains(res.Error, "did not finish within 1s") || err != nil {
		t.Errorf("hanging hook: %+v, %v", res, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// The kill is sent to the whole group when git is; the grandchild dies
	// as soon as the kernel delivers it, which under load may be a moment
	// after git's own exit was seen.
	pid := strings.TrimSpace(string(b))
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for alive(pid) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the hook's child %s outlived the timeout", pid)
		}
	}
}

// alive reports whether a process runs: it exists and is not a zombie (one
// killed whose parent died too waits for init to reap it).
func alive(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}

func TestInit(t *testing.T) {
	f := newFixture(t)
	dir := canon(t, t.TempDir())
	write(t, dir, "main.go", "package main\n")
	write(t, dir, ".gitignore", "build/\n")
	write(t, dir, "build/out", "ignored\n")
	res, err := f.git.Init(ctx(t), dir, rpc.GitInitParams{InitialBranch: "trunk", InitialCommit: true})
	if err != nil || !res.Success || res.Branch != "trunk" || res.FilesCommitted != 2 || len(res.CommitSHA) != 40 {
		t.Fatalf("init = %+v, %v", res, err)
	}
	if got := f.gitIn(dir, "symbolic-ref", "--short", "HEAD"); got != "trunk" {
		t.Errorf("branch %q", got)
	}
	res, err = f.git.Init(ctx(t), dir, rpc.GitInitParams{})
	if err != nil || res.Success || !strings.Contains(res.Error, "already a git repository") {
		t.Errorf("init again = %+v, %v", res, err)
	}
	empty := canon(t, t.TempDir())
	res, err = f.git.Init(ctx(t), empty, rpc.GitInitParams{InitialCommit: true})
	if err != nil || !res.Success || res.Branch != "main" || res.CommitSHA != "" || !strings.Contains(res.Message, "nothing to commit") {
		t.Errorf("init of an empty folder = %+v, %v", res, err)
	}
	for _, bad := range []string{"-x", "a..b", "has space"} {
		if _, err := f.git.Init(ctx(t), canon(t, t.TempDir()), rpc.GitInitParams{InitialBranch: bad}); rpcCode(err) != rpc.CodeInvalidParams {
			t.Errorf("initial_branch %q: %v", bad, err)
		}
	}
}

func rpcCode(err error) int64 {
	if e, ok := err.(*rpc.Error); ok {
		return e.Code
	}
	return 0
}
