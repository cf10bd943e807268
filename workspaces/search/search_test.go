package search

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

// gitBin is the user's git; a test that needs it fails without it.
func gitBin(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required (the project's setup installs it): %v", err)
	}
}

func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t testing.TB, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func workspace(t testing.TB) workspaces.Workspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return workspaces.Workspace{ID: "ws_t", Name: "t", Path: root}
}

// service is a Service on a private inotify instance, closed with t.
func service(t testing.TB) *Service {
	s := New(Config{Watcher: fswatch.New(fswatch.Config{})})
	t.Cleanup(s.Close)
	return s
}

func paths(r rpc.SearchResult) []string {
	var out []string
	for _, h := range r.Results {
		out = append(out, h.Path)
	}
	return out
}

// In a git work tree: tracked and untracked files are found, ignored ones
// and .git never; the file named like the query comes first.
func TestSearchGitWorkTree(t *testing.T) {
	gitBin(t)
	w := workspace(t)
	git(t, w.Path, "init", "-q")
	write(t, w.Path, ".gitignore", "build/\n*.log\n")
	write(t, w.Path, "cmd/server/main.go", "package main")
	write(t, w.Path, "internal/domain/maintenance.go", "package domain")
	write(t, w.Path, "docs/main_notes.md", "x")
	write(t, w.Path, "build/main.go", "generated")
	write(t, w.Path, "debug.log", "x")
	write(t, w.Path, "untracked_main.go", "x")
	write(t, w.Path, "assets/main.png", "\x89PNG\x00")
	git(t, w.Path, "add", "cmd", "internal", ".gitignore")
	git(t, w.Path, "commit", "-qm", "init")

	s := service(t)
	ctx := context.Background()
	res, err := s.Search(ctx, w, rpc.SearchParams{Query: "main.go"})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(res)
	if len(got) == 0 || got[0] != "cmd/server/main.go" {
		t.Errorf("main.go: %v, want cmd/server/main.go first", got)
	}
	for _, p := range got {
		if p == "build/main.go" || filepath.Base(p) == "debug.log" || filepath.Dir(p) == ".git" {
			t.Errorf("ignored or internal path %s found: %v", p, got)
		}
	}
	if !slices.Contains(got, "untracked_main.go") {
		t.Errorf("an untracked file that is not ignored is searchable: %v", got)
	}
	if res.Query != "main.go" || res.Mode != "fuzzy" || res.Total != len(got) || res.HasMore || res.WorkspaceID != w.ID {
		t.Errorf("result %+v", res)
	}
	h := res.Results[0]
	if h.Name != "main.go" || h.Directory != "cmd/server" || h.Extension != "go" || h.SizeBytes != 12 || h.ModifiedAt == "" {
		t.Errorf("hit %+v", h)
	}

	// exclude_binaries, limit, has_more.
	withBin, _ := s.Search(ctx, w, rpc.SearchParams{Query: "main"})
	noBin, _ := s.Search(ctx, w, rpc.SearchParams{Query: "main", ExcludeBinaries: true})
	if !slices.Contains(paths(withBin), "assets/main.png") || slices.Contains(paths(noBin), "assets/main.png") {
		t.Errorf("exclude_binaries: with %v, without %v", paths(withBin), paths(noBin))
	}
	one, _ := s.Search(ctx, w, rpc.SearchParams{Query: "main", Limit: 1})
	if len(one.Results) != 1 || !one.HasMore || one.Total != withBin.Total {
		t.Errorf("limit 1: %+v (of %d)", one, withBin.Total)
	}

	// Tracked and ignored, as files/list shows them.
	gs, err := s.GitState(ctx, w)
	if err != nil || gs == nil {
		t.Fatal(gs, err)
	}
	for p, want := range map[string][2]bool{"cmd/server/main.go": {true, false}, "untracked_main.go": {false, false},
		"build/main.go": {false, true}, "debug.log": {false, true}} {
		if tr, ig := gs.Tracked(p); tr != want[0] || ig != want[1] {
			t.Errorf("%s: tracked %v ignored %v, want %v", p, tr, ig, want)
		}
	}
}

// Outside a git work tree: a walk, without .git folders.
func TestSearchPlainDirectory(t *testing.T) {
	w := workspace(t)
	write(t, w.Path, "a/readme.md", "x")
	write(t, w.Path, "vendor/.git/config", "x")
	s := service(t)
	res, err := s.Search(context.Background(), w, rpc.SearchParams{Query: "rdme"})
	if err != nil || !slices.Equal(paths(res), []string{"a/readme.md"}) {
		t.Errorf("rdme: %v %v", paths(res), err)
	}
	if res, _ := s.Search(context.Background(), w, rpc.SearchParams{Query: "config"}); len(res.Results) != 0 {
		t.Errorf("a .git folder's file found: %v", paths(res))
	}
	if gs, err := s.GitState(context.Background(), w); err != nil || gs != nil {
		t.Errorf("GitState outside git: %v %v", gs, err)
	}
}

func TestSearchBadInput(t *testing.T) {
	w := workspace(t)
	s := service(t)
	for _, p := range []rpc.SearchParams{{}, {Query: "   "}, {Query: "x", Mode: "regex"}, {Query: "x", Limit: -1},
		{Query: "x", Limit: 501}, {Query: string(make([]byte, 300))}} {
		_, err := s.Search(context.Background(), w, p)
		if e, ok := err.(*rpc.Error); !ok || e.Code != rpc.CodeInvalidParams {
			t.Errorf("Search(%+v) = %v, want invalid params", p, err)
		}
	}
}

// Files created, removed and newly ignored after the first query are seen
// by later ones, through the one inotify instance.
func TestSearchStaysFresh(t *testing.T) {
	gitBin(t)
	w := workspace(t)
	git(t, w.Path, "init", "-q")
	write(t, w.Path, "src/old_name.go", "x")
	s := service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	find := func(q string) []string {
		res, err := s.Search(ctx, w, rpc.SearchParams{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return paths(res)
	}
	until := func(what string, cond func() bool) {
		t.Helper()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for !cond() {
			select {
			case <-tick.C:
			case <-ctx.Done():
				t.Fatalf("never: %s", what)
			}
		}
	}
	if got := find("oldname"); !slices.Equal(got, []string{"src/old_name.go"}) {
		t.Fatalf("first query: %v", got)
	}
	write(t, w.Path, "src/deep/new/fresh_file.go", "x")
	until("a new file in a new directory is found", func() bool { return len(find("freshfile")) == 1 })
	if err := os.Remove(filepath.Join(w.Path, "src/old_name.go")); err != nil {
		t.Fatal(err)
	}
	until("a removed file is gone", func() bool { return len(find("oldname")) == 0 })
	write(t, w.Path, ".gitignore", "src/deep/\n")
	until("a newly ignored file is gone", func() bool { return len(find("freshfile")) == 0 })
}

// gen makes a git work tree of n files in root (100 files per directory,
// 1,000 directories), quickly: one tracked, the rest untracked and not
// ignored, which git lists the same way, written by a few goroutines.
func gen(t testing.TB, root string, n int) workspaces.Workspace {
	t.Helper()
	w := workspaces.Workspace{ID: "ws_big", Name: "big", Path: root}
	git(t, w.Path, "init", "-q")
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	exts := []string{".go", ".ts", ".md", ".json", ".py"}
	dirs := (n + 99) / 100
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for part := range 4 {
		wg.Go(func() {
			for di := part; di < dirs; di += 4 {
				d := filepath.Join(w.Path, fmt.Sprintf("%s/%s_%d/%d", words[di%10], words[(di/10)%10], (di/100)%10, di))
				if err := os.MkdirAll(d, 0o755); err != nil {
					errs <- err
					return
				}
				for i := di * 100; i < min(n, di*100+100); i++ {
					name := fmt.Sprintf("%s_file_%d%s", words[(i/7)%10], i, exts[i%5])
					if err := os.WriteFile(filepath.Join(d, name), nil, 0o644); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	write(t, w.Path, "cmd/server/main.go", "package main")
	git(t, w.Path, "add", "cmd")
	return w
}

// A repository of 100,000 files: the first query builds the index, later
// ones answer from it.
func TestSearch100kFiles(t *testing.T) {
	gitBin(t)
	began := time.Now()
	w := gen(t, workspace(t).Path, 100_000)
	t.Logf("measured: 100,000 files made in %v", time.Since(began).Round(time.Millisecond))
	s := service(t)
	ctx := context.Background()
	began = time.Now()
	res, err := s.Search(ctx, w, rpc.SearchParams{Query: "main.go", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	first := time.Since(began)
	if len(res.Results) == 0 || res.Results[0].Path != "cmd/server/main.go" {
		t.Errorf("main.go among 100,000: %v", paths(res))
	}
	var took []time.Duration
	for _, q := range []string{"alpha", "deltafile42", "hotel_3/india", "json", "x9"} {
		began := time.Now()
		res, err := s.Search(ctx, w, rpc.SearchParams{Query: q, Limit: 50, ExcludeBinaries: true})
		took = append(took, time.Since(began))
		if err != nil {
			t.Fatal(err)
		}
		if q != "x9" && (len(res.Results) == 0 || res.Total < len(res.Results)) {
			t.Errorf("%q: %d results of %d", q, len(res.Results), res.Total)
		}
	}
	slices.Sort(took)
	t.Logf("measured: first query (builds the index of 100,000 paths) %v; later queries median %v, max %v",
		first.Round(time.Millisecond), took[len(took)/2], took[len(took)-1])
}
