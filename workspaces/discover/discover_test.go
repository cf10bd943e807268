package discover

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func gitInit(t *testing.T, dir string, args ...[]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range append([][]string{{"init", "-q"}}, args...) {
		cmd := exec.Command("git", a...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v (git is required): %v\n%s", a, err, out)
		}
	}
}

func TestFindRepositories(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitInit(t, filepath.Join(home, "Projects", "app"))
	gitInit(t, filepath.Join(home, "Projects", "org", "lib"), []string{"remote", "add", "origin", "https://me:tok3n@example.com/org/lib.git"})
	gitInit(t, filepath.Join(home, "Projects", "app", "vendor", "inner")) // inside a repository: not a project
	gitInit(t, filepath.Join(home, "Projects", "node_modules", "dep"))
	gitInit(t, filepath.Join(home, "Projects", ".cache", "x"))
	gitInit(t, filepath.Join(home, "Projects", "a", "b", "c", "d", "too-deep"))
	f := New(home)
	defer f.Close()
	roots, bad := f.Roots(nil)
	if bad != "" || len(roots) != len(DefaultRoots) {
		t.Fatalf("default roots %v %q", roots, bad)
	}
	ctx := context.Background()
	scan, cached, refreshing := f.Find(ctx, roots, false)
	var paths []string
	for _, r := range scan.Repos {
		paths = append(paths, r.Path)
		if r.Name == "lib" && r.RemoteURL != "https://example.com/org/lib.git" {
			t.Errorf("lib's remote %q (credentials must go)", r.RemoteURL)
		}
	}
	slices.Sort(paths)
	want := []string{filepath.Join(home, "Projects", "app"), filepath.Join(home, "Projects", "org", "lib")}
	if !slices.Equal(paths, want) || cached || refreshing {
		t.Errorf("found %v (cached %v refreshing %v), want %v", paths, cached, refreshing, want)
	}
	if !slices.Contains(scan.Scanned, filepath.Join(home, "Projects")) || !slices.Contains(scan.Skipped, filepath.Join(home, "Code")) {
		t.Errorf("scanned %v skipped %v", scan.Scanned, scan.Skipped)
	}

	// Cached, then refreshed in the background on request.
	if _, cached, _ := f.Find(ctx, roots, false); !cached {
		t.Error("second answer not cached")
	}
	gitInit(t, filepath.Join(home, "Projects", "new"))
	if _, cached, refreshing := f.Find(ctx, roots, true); !cached || !refreshing {
		t.Errorf("fresh: cached %v refreshing %v", cached, refreshing)
	}
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		scan, _, refreshing := f.Find(ctx, roots, false)
		if !refreshing && len(scan.Repos) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refresh never showed the new repository: %d repos, refreshing %v", len(scan.Repos), refreshing)
		}
		<-tick.C
	}
}

func TestRoots(t *testing.T) {
	f := New("/home/u")
	defer f.Close()
	if got, bad := f.Roots([]string{"~/Code", "/srv/x", "~/Code/"}); bad != "" || !slices.Equal(got, []string{"/home/u/Code", "/srv/x"}) {
		t.Errorf("roots %v %q", got, bad)
	}
	if _, bad := f.Roots([]string{"relative/dir"}); bad != "relative/dir" {
		t.Errorf("a relative root: %q", bad)
	}
}

func TestStripCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@github.com/o/r.git": "https://github.com/o/r.git",
		"https://github.com/o/r.git":     "https://github.com/o/r.git",
		"ssh://git@host:22/o/r":          "ssh://host:22/o/r",
		"git@github.com:o/r.git":         "git@github.com:o/r.git",
		"https://tok@host":               "https://host",
	} {
		if got := stripCredentials(in); got != want {
			t.Errorf("stripCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}
