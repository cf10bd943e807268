package gitops

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// Commit and push, then pull in a second clone: a local bare repository is
// the remote.
func TestCommitPushPull(t *testing.T) {
	f := newFixture(t)
	bare, clone := f.remote()
	write(t, clone, "a.txt", "pushed\n")
	f.gitIn(clone, "add", ".")
	res, err := f.open(clone).Commit(ctx(t), rpc.GitCommitParams{Message: "to push", Push: true})
	if err != nil || !res.Success || !res.Pushed || res.Error != "" {
		t.Fatalf("commit+push = %+v, %v", res, err)
	}
	if got := f.gitIn(bare, "rev-parse", "main"); got != res.SHA {
		t.Errorf("remote main = %s, want %s", got, res.SHA)
	}

	other := filepath.Join(canon(t, t.TempDir()), "other")
	f.gitIn(f.home, "clone", "-q", bare, other)
	write(t, other, "b.txt", "from the other clone\n")
	f.gitIn(other, "commit", "-q", "-am", "other's")
	push, err := f.open(other).Push(ctx(t), rpc.GitPushParams{})
	if err != nil || !push.Success || push.CommitsPushed != 1 {
		t.Fatalf("push = %+v, %v", push, err)
	}

	pull, err := f.open(clone).Pull(ctx(t), rpc.GitPullParams{})
	if err != nil || !pull.Success || len(pull.ConflictedFiles) != 0 {
		t.Fatalf("pull = %+v, %v", pull, err)
	}
	if got := read(t, clone, "b.txt"); got != "from the other clone\n" {
		t.Errorf("b.txt after pull = %q", got)
	}

	// Both change a.txt: the pull lists the conflict.
	write(t, other, "a.txt", "theirs\n")
	f.gitIn(other, "commit", "-q", "-am", "theirs")
	f.gitIn(other, "push", "-q")
	write(t, clone, "a.txt", "ours\n")
	f.gitIn(clone, "commit", "-q", "-am", "ours")
	pull, err = f.open(clone).Pull(ctx(t), rpc.GitPullParams{})
	if err != nil || pull.Success || len(pull.ConflictedFiles) != 1 || pull.ConflictedFiles[0] != "a.txt" || pull.Error == "" {
		t.Errorf("conflicting pull = %+v, %v", pull, err)
	}
	if s := f.git.Summary(ctx(t), clone); s.State != "merging" {
		t.Errorf("state after a conflicting pull = %q", s.State)
	}
}

// A new branch's first push sets its upstream; a branch without one cannot
// be pulled, and the message says how to fix it.
func TestPushSetsUpstream(t *testing.T) {
	f := newFixture(t)
	bare, clone := f.remote()
	f.gitIn(clone, "switch", "-q", "-c", "feature")
	write(t, clone, "f.txt", "f\n")
	f.gitIn(clone, "add", ".")
	f.gitIn(clone, "commit", "-q", "-m", "feature")
	r := f.open(clone)
	pull, err := r.Pull(ctx(t), rpc.GitPullParams{})
	if err != nil || pull.Success || !strings.Contains(pull.Error, "git/upstream/set") {
		t.Errorf("pull without upstream = %+v, %v", pull, err)
	}
	push, err := r.Push(ctx(t), rpc.GitPushParams{})
	if err != nil || !push.Success || push.CommitsPushed != 1 {
		t.Fatalf("push = %+v, %v", push, err)
	}
	if got := f.gitIn(clone, "rev-parse", "--abbrev-ref", "feature@{upstream}"); got != "origin/feature" {
		t.Errorf("upstream = %q", got)
	}
	if f.gitIn(bare, "rev-parse", "feature") != f.gitIn(clone, "rev-parse", "HEAD") {
		t.Error("the remote lacks the branch")
	}
}

// A push to a remote that asks for credentials the user's helpers do not
// have fails at once with git's message: no prompt, no hang.
func TestPushWithoutCredentialsFailsFast(t *testing.T) {
	f := newFixture(t)
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("WWW-Authenticate", `Basic realm="private"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	dir := f.repo()
	f.gitIn(dir, "remote", "add", "origin", srv.URL+"/repo.git")
	start := time.Now()
	push, err := f.open(dir).Push(ctx(t), rpc.GitPushParams{})
	if err != nil || push.Success {
		t.Fatalf("push = %+v, %v", push, err)
	}
	if !strings.Contains(push.Error, "terminal prompts disabled") || !strings.Contains(push.Error, "credential helper") {
		t.Errorf("error %q does not say credentials are needed", push.Error)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the push took %s", d)
	}
	if asked.Load() == 0 {
		t.Error("git never reached the server")
	}
	t.Logf("failed in %s: %s", time.Since(start).Round(time.Millisecond), push.Error)
}

func TestRemoteAddAndUpstream(t *testing.T) {
	f := newFixture(t)
	bare, _ := f.remote()
	dir := f.repo()
	r := f.open(dir)
	res, err := r.RemoteAdd(ctx(t), rpc.GitRemoteAddParams{Name: "origin", URL: bare, Fetch: true})
	if err != nil || !res.Success || res.Remote == nil || res.Remote.Provider != "other" ||
		strings.Join(res.FetchedBranches, ",") != "origin/main" {
		t.Fatalf("remote add = %+v, %v", res, err)
	}
	res, err = r.RemoteAdd(ctx(t), rpc.GitRemoteAddParams{URL: bare})
	if err != nil || res.Success || !strings.Contains(res.Error, "already exists") {
		t.Errorf("remote add again = %+v, %v", res, err)
	}
	for _, bad := range []rpc.GitRemoteAddParams{{Name: "-x", URL: bare}, {Name: "a/b", URL: bare},
		{Name: "up", URL: "--upload-pack=touch /tmp/x"}, {Name: "up", URL: "ext::sh -c touch% /tmp/x"}, {Name: "up"}} {
		if _, err := r.RemoteAdd(ctx(t), bad); rpcCode(err) != rpc.CodeInvalidParams {
			t.Errorf("remote add %+v: %v", bad, err)
		}
	}
	up, err := r.UpstreamSet(ctx(t), rpc.GitUpstreamSetParams{Branch: "main", Upstream: "origin/main"})
	if err != nil || !up.Success {
		t.Fatalf("upstream set = %+v, %v", up, err)
	}
	if got := f.gitIn(dir, "rev-parse", "--abbrev-ref", "main@{upstream}"); got != "origin/main" {
		t.Errorf("upstream = %q", got)
	}
	up, err = r.UpstreamSet(ctx(t), rpc.GitUpstreamSetParams{Upstream: "origin/nope"})
	if err != nil || up.Success || up.Error == "" {
		t.Errorf("unknown upstream = %+v, %v", up, err)
	}
	if _, err := r.UpstreamSet(ctx(t), rpc.GitUpstreamSetParams{Upstream: "--unset"}); rpcCode(err) != rpc.CodeInvalidParams {
		t.Errorf("upstream --unset: %v", err)
	}
	for url, want := range map[string]string{"git@github.com:o/r.git": "github", "https://gitlab.example.com/o/r": "gitlab",
		"https://bitbucket.org/o/r.git": "bitbucket", "/srv/r.git": "other"} {
		if got := provider(url); got != want {
			t.Errorf("provider(%s) = %s", url, got)
		}
	}
}
