// Package ts_test runs the TypeScript client's checks from go test, so that
// make test covers them: the generated types are fresh, the package compiles
// under tsc --strict, wrong calls do not compile, the client survives bad
// servers (node --test), every wire fixture of the contract suite decodes
// into its typed branch, and a full session (and a connection cut mid-turn)
// runs against a real `cdevd serve` with the real Claude CLI and the fake
// model API.
package ts_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// bin is a tool npm ci installed at the repository root; missing fails.
func bin(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s not found (%v): run npm ci at the repository root", name, err)
	}
	return p
}

func run(t *testing.T, env []string, name string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

// build compiles src and test with tsc --strict into a directory inside the
// package (so that node finds ws and package.json's "type": "module").
func build(t *testing.T) string {
	t.Helper()
	out, err := os.MkdirTemp(".", ".test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	if b, err := run(t, nil, bin(t, "tsc"), "-p", ".", "--strict", "--outDir", out); err != nil {
		t.Fatalf("tsc --strict: %v\n%s", err, b)
	}
	return out
}

func node(t *testing.T, env []string, file string) {
	t.Helper()
	b, err := run(t, env, "node", "--test", "--test-timeout=120000", file)
	if err != nil {
		t.Fatalf("node --test %s: %v\n%s", file, err, b)
	}
	t.Logf("%s", lastLines(b, 9))
}

func lastLines(b []byte, n int) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return bytes.Join(lines[max(0, len(lines)-n):], []byte("\n"))
}

// The committed src/*.gen.ts are what gen.mjs makes of openrpc/ today.
func TestGeneratedTypesAreFresh(t *testing.T) {
	bin(t, "tsc") // gen.mjs needs the root node_modules too
	dir := t.TempDir()
	if b, err := run(t, nil, "node", "gen.mjs", dir); err != nil {
		t.Fatalf("gen.mjs: %v\n%s", err, b)
	}
	for _, f := range []string{"types.gen.ts", "methods.gen.ts"} {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("src", f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("src/%s is stale: run `node clients/ts/gen.mjs` (or `go generate ./clients/ts`)", f)
		}
	}
}

// typecheck/wrong.ts fails to compile on exactly its "want error" lines.
func TestWrongCallsDoNotCompile(t *testing.T) {
	const file = "typecheck/wrong.ts"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "// want error") {
			want = append(want, i+1)
		}
	}
	b, err := run(t, nil, bin(t, "tsc"), "--strict", "--noEmit", "--target", "ES2022", "--module", "NodeNext",
		"--moduleResolution", "NodeNext", "--lib", "ES2022,DOM", "--types", "node", file)
	if err == nil {
		t.Fatalf("tsc compiled %s", file)
	}
	var got []int
	for _, m := range regexp.MustCompile(`(?m)^typecheck/wrong\.ts\((\d+),\d+\): error TS\d+`).FindAllSubmatch(b, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		got = append(got, n)
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors on lines %v, want %v\n%s", got, want, b)
	}
}

// tsc --strict compiles the package, and the client survives servers that
// close, refuse, send garbage, never answer, or drop mid-watch.
func TestFaults(t *testing.T) {
	out := build(t)
	node(t, nil, filepath.Join(out, "test", "faults.test.js"))
}

// Every frame of contracttests/testdata/wire decodes through the client's own
// decoding path into the branch and method its file names, and matches the
// schema bundle the types are generated from (test/wire.test.ts).
func TestWireFixtures(t *testing.T) {
	out := build(t)
	node(t, nil, filepath.Join(out, "test", "wire.test.js"))
}

// A whole session through the client against a real `cdevd serve` process
// (built from ./cmd/cdevd) running the real Claude CLI against the fake model
// API: start, send, deltas, a permission answered, history, messages, stop;
// then a connection cut mid-turn that the client recovers whole
// (test/live.test.ts). serve stops at the end and leaves no process.
func TestLiveSession(t *testing.T) {
	out := build(t)
	fake := fakeanthropic.New(t)
	const command = "echo from-ts > ts.txt"
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		if res, ok := req.ToolResult(); ok {
			return fakeanthropic.Text("tool said: " + res.ResultText())
		}
		if req.LastUserText() == "talk slowly" {
			// Word by word, so that the client's connection can be cut
			// between two deltas of one turn.
			return fakeanthropic.Slow(strings.TrimSpace(strings.Repeat("slowly ", 60)), 30*time.Millisecond)
		}
		if !req.HasTool("Bash") {
			return fakeanthropic.Echo(req)
		}
		return fakeanthropic.UseTool("Bash", map[string]string{"command": command, "description": "Create ts.txt"})
	})
	const token = "ts-live-token-0123456789abcdef0123456789"
	mark := "CDEVD_TEST_TREE=" + rand.Text()
	s := startServe(t, append(claudetest.Env(t, fake.URL()), "CDEVD_HOME="+t.TempDir(), "CDEVD_TOKEN="+token,
		"CLAUDE_BIN="+claudetest.Bin(t), mark))
	ws := t.TempDir()
	node(t, []string{"CDEVD_URL=" + s.url, "CDEVD_TOKEN=" + token, "CDEVD_WORKSPACE=" + ws,
		"CDEVD_COMMAND=" + command}, filepath.Join(out, "test", "live.test.js"))
	if b, err := os.ReadFile(filepath.Join(ws, "ts.txt")); err != nil || string(b) != "from-ts\n" {
		t.Errorf("ts.txt = %q, %v: the permission answered yes did not run the command", b, err)
	}
	// The reconnect test leaves its session running: stopping serve must end it.
	if running := proctest.Marked(mark); len(running) < 2 {
		t.Errorf("only %v running before serve stops: no session's CLI for the check below to find", running)
	}
	s.stop(t)
	if left := proctest.Marked(mark); len(left) > 0 {
		t.Errorf("processes left after serve exited: %v", left)
		for _, p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// serveProc is a `cdevd serve` process.
type serveProc struct {
	cmd  *exec.Cmd
	url  string
	log  *bytes.Buffer
	done chan error
}

// startServe builds ./cmd/cdevd and runs `serve` on a free loopback port with
// env as its whole environment; it returns once serve printed its URL.
func startServe(t *testing.T, env []string) *serveProc {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "cdevd")
	if b, err := run(t, nil, "go", "build", "-o", exe, "../../cmd/cdevd"); err != nil {
		t.Fatalf("go build ./cmd/cdevd: %v\n%s", err, b)
	}
	cmd := exec.Command(exe, "serve", "--addr", "127.0.0.1:0", "--log-format", "json")
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Written by exec's copying goroutine, read only after Wait.
	s := &serveProc{cmd: cmd, log: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		first <- sc.Text()
		for sc.Scan() { // keep the pipe drained
		}
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() { // after a failure: stop serve, whatever it is doing
		if s.done != nil {
			_ = cmd.Process.Kill()
			<-s.done
			t.Logf("cdevd log:\n%s", s.log)
		}
	})
	select {
	case l := <-first:
		if s.url = regexp.MustCompile(`ws://127\.0\.0\.1:\d+/ws`).FindString(l); s.url == "" {
			t.Fatalf("first line has no ws:// URL: %q", l)
		}
	case <-time.After(claudetest.Timeout):
		t.Fatal("cdevd printed no URL")
	}
	return s
}

// stop ends serve as a service manager would (SIGTERM) and waits for it.
func (s *serveProc) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		s.done = nil
		if err != nil {
			t.Errorf("cdevd after SIGTERM: %v\n%s", err, s.log)
		}
	case <-time.After(claudetest.Timeout):
		t.Fatal("cdevd did not exit after SIGTERM")
	}
}
