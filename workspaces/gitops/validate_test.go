package gitops

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// Paths from clients stay inside the repository: "..", absolute paths,
// .git and a path through a symlink to elsewhere are refused before git
// runs, with the boundary's error codes; nothing outside is touched.
func TestPathsStayInside(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	outside := canon(t, t.TempDir())
	write(t, outside, "secret.txt", "keep\n")
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	r := f.open(dir)
	cases := map[string]int64{
		"../x":                                 rpc.CodePathOutside,
		"a/../../x":                            rpc.CodePathOutside,
		"/etc/passwd":                          rpc.CodeInvalidPath,
		filepath.Join(outside, "x"):            rpc.CodeInvalidPath,
		"~/x":                                  rpc.CodeInvalidPath,
		".git/config":                          rpc.CodeInvalidPath,
		"link/secret.txt":                      rpc.CodePathOutside,
		"":                                     rpc.CodeInvalidParams,
		"a\x00b":                               rpc.CodeInvalidPath,
		"link/../../" + filepath.Base(outside): rpc.CodePathOutside,
	}
	for p, code := range cases {
		_, err := r.Discard(ctx(t), rpc.GitPathsParams{Paths: []string{"a.txt", p}})
		if got := rpcCode(err); got != code {
			t.Errorf("discard %q: %v, want code %d", p, err, code)
		}
		if _, err := r.Stage(ctx(t), rpc.GitPathsParams{Paths: []string{p}}); rpcCode(err) != code {
			t.Errorf("stage %q: %v", p, err)
		}
		if _, err := r.Diff(ctx(t), rpc.GitDiffParams{Path: p}); p != "" && rpcCode(err) != code {
			t.Errorf("diff %q: %v", p, err)
		}
	}
	if got := read(t, outside, "secret.txt"); got != "keep\n" {
		t.Errorf("outside file = %q", got)
	}
	// The link itself is a file of the repository, staged as a link.
	if res, err := r.Stage(ctx(t), rpc.GitPathsParams{Paths: []string{"link"}}); err != nil || !res.Success {
		t.Errorf("stage the link itself: %+v, %v", res, err)
	}
	// A deleted folder's file is still named by its path.
	f.gitIn(dir, "rm", "-q", "--cached", "b.txt")
	write(t, dir, "gone/x.txt", "x\n")
	f.gitIn(dir, "add", "gone/x.txt")
	if err := os.RemoveAll(filepath.Join(dir, "gone")); err != nil {
		t.Fatal(err)
	}
	if res, err := r.Stage(ctx(t), rpc.GitPathsParams{Paths: []string{"gone/x.txt"}}); err != nil || !res.Success {
		t.Errorf("stage a deleted folder's file: %+v, %v", res, err)
	}
	if _, err := r.Stage(ctx(t), rpc.GitPathsParams{}); rpcCode(err) != rpc.CodeInvalidParams {
		t.Errorf("no paths: %v", err)
	}
}

// Pathspecs are literal: a file named like pathspec magic or a glob is
// that file, not every file.
func TestLiteralPathspecs(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	write(t, dir, "a.txt", "changed\n")
	write(t, dir, "b.txt", "changed\n")
	r := f.open(dir)
	for _, p := range []string{"*.txt", ":(top)a.txt", "[ab].txt"} {
		res, err := r.Discard(ctx(t), rpc.GitPathsParams{Paths: []string{p}})
		if err != nil || res.DiscardedCount != 0 {
			t.Errorf("discard %q = %+v, %v", p, res, err)
		}
	}
	if read(t, dir, "a.txt") != "changed\n" || read(t, dir, "b.txt") != "changed\n" {
		t.Error("a pattern discarded real files")
	}
}

// Branch names that read as options, or that git would not make, are
// refused before git runs with them.
func TestBranchNames(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	r := f.open(dir)
	for _, b := range []string{"-f", "--orphan=x", "-", "a..b", "a b", "x~1", "refs/../x", "@{-1}", "end.lock", ""} {
		if _, err := r.Checkout(ctx(t), rpc.GitCheckoutParams{Branch: b, Create: true}); rpcCode(err) != rpc.CodeInvalidParams {
			t.Errorf("checkout %q: %v", b, err)
		}
		if _, err := r.BranchDelete(ctx(t), rpc.GitBranchDeleteParams{Branch: b}); rpcCode(err) != rpc.CodeInvalidParams {
			t.Errorf("delete %q: %v", b, err)
		}
		if _, err := r.UpstreamSet(ctx(t), rpc.GitUpstreamSetParams{Branch: b, Upstream: "origin/main"}); b != "" && rpcCode(err) != rpc.CodeInvalidParams {
			t.Errorf("upstream of %q: %v", b, err)
		}
	}
	if got := f.gitIn(dir, "branch", "--list"); got != "* main" {
		t.Errorf("branches now: %q", got)
	}
}
