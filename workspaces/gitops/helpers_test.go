package gitops

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/rpc"
)

func TestMain(m *testing.M) {
	// A missing git fails loudly: these tests are about running it.
	if _, err := exec.LookPath("git"); err != nil {
		panic("git is not installed (make install installs it): " + err.Error())
	}
	goleak.VerifyTestMain(m)
}

// fixture is a user's git setup in a temporary HOME: their config (a name,
// an email), and repositories made with the real git.
type fixture struct {
	t    *testing.T
	home string
	env  []string
	git  *Git
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := canon(t, t.TempDir())
	cfg := "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1"}
	return &fixture{t: t, home: home, env: env, git: New(Config{Env: env})}
}

func canon(t *testing.T, p string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// gitIn runs git as the user would, for setting up and checking.
func (f *fixture) gitIn(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), f.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo makes a repository with one commit of a.txt and b.txt.
func (f *fixture) repo() string {
	f.t.Helper()
	dir := canon(f.t, f.t.TempDir())
	f.gitIn(dir, "init", "-q")
	write(f.t, dir, "a.txt", "one\ntwo\nthree\n")
	write(f.t, dir, "b.txt", "bee\n")
	f.gitIn(dir, "add", ".")
	f.gitIn(dir, "commit", "-q", "-m", "first")
	return dir
}

// remote makes a bare repository and a clone of it with one pushed commit.
func (f *fixture) remote() (bare, clone string) {
	f.t.Helper()
	bare = filepath.Join(canon(f.t, f.t.TempDir()), "remote.git")
	f.gitIn(f.home, "init", "-q", "--bare", bare)
	clone = f.repo()
	f.gitIn(clone, "remote", "add", "origin", bare)
	f.gitIn(clone, "push", "-q", "-u", "origin", "main")
	return bare, clone
}

func (f *fixture) open(dir string) *Repo {
	f.t.Helper()
	r, err := f.git.Open(ctx(f.t), dir)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// names lists files as "path:status", in order.
func names(files []rpc.GitFile) string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path+":"+f.Status)
	}
	return strings.Join(out, ",")
}
