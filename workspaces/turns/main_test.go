package turns

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// A missing git fails loudly: these tests are about running it.
	if _, err := exec.LookPath("git"); err != nil {
		panic("git is not installed (make install installs it): " + err.Error())
	}
	goleak.VerifyTestMain(m)
}

// fixture is a user's git setup in a temporary HOME, a repository made
// with the real git, and a Snapshotter whose home is a directory of its own.
type fixture struct {
	t    testing.TB
	env  []string
	dir  string
	home string
	repo *Repo
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	home := canon(t, t.TempDir())
	cfg := "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1"}}
	f.dir = canon(t, t.TempDir())
	f.git("init", "-q")
	f.write("a.txt", "one\ntwo\nthree\n")
	f.write("b.txt", "bee\n")
	f.write(".gitignore", "*.log\n")
	f.git("add", ".")
	f.git("commit", "-q", "-m", "first")
	f.home = filepath.Join(home, "cdevd", "turns")
	s := New(Config{Home: f.home, Env: f.env})
	r, err := s.Open(context.Background(), f.dir)
	if err != nil {
		t.Fatal(err)
	}
	f.repo = r
	return f
}

func canon(t testing.TB, p string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = f.dir
	cmd.Env = append(os.Environ(), f.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) snapshot() string {
	f.t.Helper()
	tree, err := f.repo.Snapshot(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return tree
}

// userState is everything of the user's repository a snapshot must leave
// alone: the index file's bytes, every ref, the stash, the object store's
// file list, and what git status says.
func (f *fixture) userState() string {
	f.t.Helper()
	index, err := os.ReadFile(filepath.Join(f.dir, ".git", "index"))
	if err != nil {
		f.t.Fatal(err)
	}
	var objects []string
	err = filepath.Walk(filepath.Join(f.dir, ".git", "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			objects = append(objects, p)
		}
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Join([]string{
		string(index),
		f.git("for-each-ref"),
		f.git("stash", "list"),
		f.git("status", "--porcelain=v2", "--untracked-files=all"),
		strings.Join(objects, "\n"),
	}, "\n--\n")
}
