package bench

// The workspace figures (git/status, a turn's snapshot, repository/search,
// workspace/file/get) share one generated repository, made once per run
// with the user's own git: {files} small files in folders of 100,
// committed, then {changed} of them changed, and one 1 MB text file.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// bigFile is the repository's 1 MB text file (workspace/file/get reads it
// whole: cdevd's cap is 1 MiB).
const bigFile = "big.txt"

// repoFixture is the generated repository.
type repoFixture struct {
	dir string
	env []string // the environment cdevd serve's git sees (its HOME)
	// searched: the served daemon has had the first query (which builds
	// its index).
	searched bool
}

// repoConn is a connection on which the repository is a workspace. Each
// figure has its own: a connection left unread through a long figure
// would miss cdevd's pings, and be closed.
type repoConn struct {
	*repoFixture
	c  *conn
	ws rpc.Workspace
}

// ensureRepo generates the repository on first use and connects to it.
func (b *Bench) ensureRepo(ctx context.Context) (*repoConn, error) {
	if b.fix.repo == nil {
		// The direct git runs get the served daemon's HOME, so that both
		// sides read the same (empty) user configuration.
		r := &repoFixture{dir: b.path("ws", "repo"), env: b.childEnv("HOME=" + b.path("home"))}
		began := time.Now()
		if err := r.generate(b.sz.repoFiles, b.sz.repoChanged); err != nil {
			return nil, fmt.Errorf("generating the repository: %w", err)
		}
		fmt.Fprintf(b.opts.Log, "bench: generated a repository of %d files (%d changed) in %s\n",
			b.sz.repoFiles, b.sz.repoChanged, time.Since(began).Round(time.Millisecond))
		b.fix.repo = r
	}
	r := &repoConn{repoFixture: b.fix.repo}
	var err error
	if r.c, err = connect(ctx, b.serve); err != nil {
		return nil, err
	}
	if r.ws, err = workspace(r.c, r.dir); err != nil {
		r.c.close()
		return nil, err
	}
	return r, nil
}

// generate writes and commits n files and the big one, then changes
// changed of the n, spread over the tree.
func (r *repoFixture) generate(n, changed int) error {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	git := func(args ...string) error {
		_, err := r.git(args...)
		return err
	}
	if err := git("init", "-q", "-b", "main"); err != nil {
		return err
	}
	// No automatic gc or maintenance: after 100,000 loose objects git
	// would start one in the background, under the measurements.
	for _, kv := range [][2]string{{"gc.auto", "0"}, {"maintenance.auto", "false"},
		{"user.name", "cdevd bench"}, {"user.email", "bench@cdevd.invalid"}} {
		if err := git("config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	for i := range n {
		sub := filepath.Join(r.dir, "d"+strconv.Itoa(i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(sub, "f"+strconv.Itoa(i)+".txt"), []byte("line "+strconv.Itoa(i)+"\n"), 0o644); err != nil {
			return err
		}
	}
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(filepath.Join(r.dir, bigFile), []byte(strings.Repeat(line, 10_000)), 0o644); err != nil {
		return err
	}
	if err := git("add", "-A"); err != nil {
		return err
	}
	if err := git("commit", "-q", "--no-verify", "-m", "generated"); err != nil {
		return err
	}
	step := max(n/max(changed, 1), 1)
	for i, done := 0, 0; i < n && done < changed; i, done = i+step, done+1 {
		p := filepath.Join(r.dir, "d"+strconv.Itoa(i/100), "f"+strconv.Itoa(i)+".txt")
		if err := os.WriteFile(p, []byte("changed\n"), 0o644); err != nil {
			return err
		}
	}
	// The index's stat data settle once, for both sides of each figure.
	if err := git("status", "--porcelain=v2"); err != nil {
		return err
	}
	settle()
	return nil
}

// git runs the user's git in the repository, as a user would type it.
func (r *repoFixture) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(ee.Stderr))
		}
		return out, fmt.Errorf("git %s: %v %s", strings.Join(args, " "), err, stderr)
	}
	return out, nil
}

// gitStatus: git/status over the wire against `git status --porcelain=v2`
// run directly, taking turns (which goes first alternates, as the tree's
// inodes may have left the cache between rounds).
func (b *Bench) gitStatus(ctx context.Context) (sample, error) {
	r, err := b.ensureRepo(ctx)
	if err != nil {
		return sample{}, err
	}
	defer r.c.close()
	var viaRPC, direct []time.Duration
	rpcStatus := func() error {
		var res rpc.GitStatusResult
		_, took, err := r.c.call(rpc.MethodGitStatus, rpc.GitWorkspaceParams{WorkspaceID: r.ws.ID}, &res)
		if err == nil && len(res.Unstaged) < b.sz.repoChanged {
			err = fmt.Errorf("git/status lists %d unstaged files, want %d", len(res.Unstaged), b.sz.repoChanged)
		}
		viaRPC = append(viaRPC, took)
		return err
	}
	gitDirect := func() error {
		began := time.Now()
		_, err := r.git("status", "--porcelain=v2")
		direct = append(direct, time.Since(began))
		return err
	}
	if err := rpcStatus(); err != nil { // warm: the first opens the repository
		return sample{}, err
	}
	viaRPC = viaRPC[:0]
	for i := range b.sz.repoCalls {
		first, second := rpcStatus, gitDirect
		if i%2 == 1 {
			first, second = second, first
		}
		if err := first(); err != nil {
			return sample{}, err
		}
		if err := second(); err != nil {
			return sample{}, err
		}
	}
	return sample{value: percentile(viaRPC, 0.5).Seconds(), base: percentile(direct, 0.5).Seconds()}, nil
}

// search: repository/search after the first query (which builds the
// index and is not counted), over queries of several kinds, each round
// trip next to the echo of the same bytes.
func (b *Bench) search(ctx context.Context) (sample, error) {
	r, err := b.ensureRepo(ctx)
	if err != nil {
		return sample{}, err
	}
	defer r.c.close()
	params := func(q string) rpc.SearchParams {
		return rpc.SearchParams{Query: q, Limit: 50, ExcludeBinaries: true, WorkspaceID: r.ws.ID}
	}
	if !r.searched {
		var res rpc.SearchResult
		began := time.Now()
		if _, _, err := r.c.call(rpc.MethodSearch, params("f12.txt"), &res); err != nil {
			return sample{}, err
		}
		if len(res.Results) == 0 {
			return sample{}, fmt.Errorf("the first search found nothing")
		}
		fmt.Fprintf(b.opts.Log, "bench: the first search (which builds the index) took %s\n", time.Since(began).Round(time.Millisecond))
		r.searched = true
	}
	queries := []string{"f12.txt", "d9/f", "line", "f99999", "big", "d1/f1", "xyzzy", "txt"}
	return callsAgainstEcho(ctx, b.echo, r.c, b.sz.searchCalls, func(i int) (string, any) {
		return rpc.MethodSearch, params(queries[i%len(queries)])
	})
}

// callsAgainstEcho times n calls on c, each followed by the echo of a
// request of the same size with a reply of the same size, and returns both
// p50s. Unlike interleaved, it reads past notifications (a heartbeat may
// come during a long figure) and gives each call its own params.
func callsAgainstEcho(ctx context.Context, echo *proc, c *conn, n int, next func(i int) (string, any)) (sample, error) {
	var e *conn
	defer func() {
		if e != nil {
			e.close()
		}
	}()
	var cd, ed []time.Duration
	for i := range warmup + n {
		method, params := next(i)
		frame := c.frame(method, params)
		size, took, err := c.call(method, params, nil)
		if err != nil {
			return sample{}, err
		}
		if e == nil {
			if e, err = echoConn(ctx, echo, size); err != nil {
				return sample{}, err
			}
		}
		_, d2, err := e.roundTrip(frame)
		if err != nil {
			return sample{}, err
		}
		if i >= warmup {
			cd, ed = append(cd, took), append(ed, d2)
		}
	}
	return sample{value: percentile(cd, 0.5).Seconds(), base: percentile(ed, 0.5).Seconds()}, nil
}

// fileGet: workspace/file/get of the 1 MB file, the round trip up to the
// reply's last byte (not decoded: the client's decoder is not cdevd's
// cost), next to the echo of as many bytes.
func (b *Bench) fileGet(ctx context.Context) (sample, error) {
	r, err := b.ensureRepo(ctx)
	if err != nil {
		return sample{}, err
	}
	defer r.c.close()
	var res rpc.FileGetResult
	if _, _, err := r.c.call(rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: r.ws.ID, Path: bigFile}, &res); err != nil {
		return sample{}, err
	}
	if len(res.Content) != 1_000_000 || res.Truncated {
		return sample{}, fmt.Errorf("workspace/file/get gave %d bytes (truncated %v), want 1,000,000", len(res.Content), res.Truncated)
	}
	return callsAgainstEcho(ctx, b.echo, r.c, b.sz.fileCalls, func(int) (string, any) {
		return rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: r.ws.ID, Path: bigFile}
	})
}
