package contracttests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
)

// The generated repository of BenchmarkGitStatus: benchFiles files in
// folders of 100, benchChanged of them changed after the commit. Override
// with CDEVD_BENCH_GIT_FILES for a quicker run.
const (
	benchFiles   = 100_000
	benchChanged = 1_000
)

// genRepo writes and commits a repository of n files, then changes
// changed of them (spread over the tree). It returns how long that took.
// CDEVD_BENCH_GIT_REPO names a repository to use instead.
func genRepo(b *testing.B, dir string, n, changed int) time.Duration {
	b.Helper()
	start := time.Now()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", "-b", "main")
	// No automatic gc: after a commit of 100,000 loose objects git starts
	// one in the background, which would run through the measurement (and
	// write into the folder as it is removed).
	git("config", "gc.auto", "0")
	git("config", "maintenance.auto", "false")
	for i := range n {
		sub := filepath.Join(dir, "d"+strconv.Itoa(i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, "f"+strconv.Itoa(i)+".txt"), []byte("line "+strconv.Itoa(i)+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "generated")
	step := max(n/changed, 1)
	for i := 0; i < n && i/step < changed; i += step {
		p := filepath.Join(dir, "d"+strconv.Itoa(i/100), "f"+strconv.Itoa(i)+".txt")
		if err := os.WriteFile(p, []byte("changed\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	git("status", "--porcelain=v2") // the index's stat data settle, for both sides alike
	return time.Since(start)
}

// BenchmarkGitStatus compares a git/status round trip (over the WebSocket,
// decoded) with `git status --porcelain=v2` run directly in the same
// repository, taking turns so that each sees the same machine load. It
// reports each one's mean and the ratios (the target is ≤ 1.2).
func BenchmarkGitStatus(b *testing.B) {
	n, changed := benchFiles, benchChanged
	if v, err := strconv.Atoi(os.Getenv("CDEVD_BENCH_GIT_FILES")); err == nil && v > 0 {
		n, changed = v, max(v/100, 1)
	}
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		b.Setenv(k, "Bench")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		b.Setenv(k, "bench@example.com")
	}
	b.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if repo := os.Getenv("CDEVD_BENCH_GIT_REPO"); repo != "" {
		dir = repo // one generated before, to measure again without waiting
	} else {
		gen := genRepo(b, dir, n, changed)
		b.Logf("generated %d files, %d changed, in %s", n, changed, gen.Round(time.Millisecond))
	}

	d := benchDaemon(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ws := benchDial(b, ctx, d.URL(), d.Token())
	defer ws.Close()
	roundTrip(b, ws, []byte(initializeFrame))
	add := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/add","params":{"path":%q}}`, dir)
	reply := string(roundTrip(b, ws, []byte(add)))
	_, after, _ := strings.Cut(reply, `"id":"`)
	id, _, _ := strings.Cut(after, `"`)
	status := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"%s","params":{"workspace_id":%q}}`, rpc.MethodGitStatus, id))
	if r := string(responseTo(b, ws, status)); !strings.Contains(r, `"unstaged":[{`) {
		b.Fatalf("git/status: %.300s", r)
	}

	// Two direct runs: git status as a user types it (which takes the
	// index's optional lock and rewrites the index when it can refresh
	// it), and as cdevd runs it, without optional locks
	// (GIT_OPTIONAL_LOCKS=0, see gitops.Git.env), the like-for-like one.
	gitStatus := func(env ...string) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("git", "status", "--porcelain=v2")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var direct, noLocks, viaRPC time.Duration
	rpcStatus := func() time.Duration {
		t0 := time.Now()
		reply := responseTo(b, ws, status)
		d := time.Since(t0)
		if !strings.Contains(string(reply), `"unstaged":[{`) {
			b.Fatalf("git/status: %.300s", reply)
		}
		return d
	}
	// The three take turns at going first: on a loaded machine the tree's
	// inodes fall out of the cache between rounds, and the first of a round
	// pays for reading them again (at 100,000 files, 3× the others).
	round := 0
	b.ResetTimer()
	for b.Loop() {
		for k := range 3 {
			switch (round + k) % 3 {
			case 0:
				direct += gitStatus()
			case 1:
				noLocks += gitStatus("GIT_OPTIONAL_LOCKS=0")
			case 2:
				viaRPC += rpcStatus()
			}
		}
		round++
	}
	b.StopTimer()
	runs := float64(b.N)
	b.ReportMetric(float64(direct.Milliseconds())/runs, "ms/git-status")
	b.ReportMetric(float64(noLocks.Milliseconds())/runs, "ms/git-status-nolocks")
	b.ReportMetric(float64(viaRPC.Milliseconds())/runs, "ms/git/status-rpc")
	b.ReportMetric(float64(viaRPC)/float64(direct), "ratio")
	b.ReportMetric(float64(viaRPC)/float64(noLocks), "ratio-nolocks")
}

// responseTo sends a request and reads frames up to its response: a round trip
// this long may see a heartbeat first (roundTrip would take it for the
// response).
func responseTo(b *testing.B, ws *websocket.Conn, frame []byte) []byte {
	if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		b.Fatal(err)
	}
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			b.Fatal(err)
		}
		if !strings.HasPrefix(string(msg), `{"jsonrpc":"2.0","method":`) {
			return msg
		}
	}
}
