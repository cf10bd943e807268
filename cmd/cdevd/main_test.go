package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
)

// TestMain lets a test run the real command by re-executing the test binary.
func TestMain(m *testing.M) {
	// First: the fake agent inherits the serving daemon's environment.
	if acpfake.IsAgent() {
		acpfake.Main()
		return
	}
	if os.Getenv("CDEVD_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func runCmd(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestTokenIsStableAndRotates(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CDEVD_HOME": home, "CDEVD_TOKEN": ""}
	first, _, code := runCmd(t, env, "token")
	if code != 0 || !regexp.MustCompile(`^[0-9a-f]{64}\n$`).MatchString(first) {
		t.Fatalf("token = %q (exit %d), want 256 bits of hex", first, code)
	}
	again, _, _ := runCmd(t, env, "token")
	if again != first {
		t.Fatal("token changed between calls")
	}
	fi, err := os.Stat(filepath.Join(home, "token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", err, fi.Mode())
	}
	rotated, _, _ := runCmd(t, env, "token", "--rotate")
	if rotated == first {
		t.Fatal("--rotate kept the old token")
	}
	env["CDEVD_TOKEN"] = envToken
	if got, _, _ := runCmd(t, env, "token"); got != envToken+"\n" {
		t.Fatalf("CDEVD_TOKEN not honoured: %q", got)
	}
}

// envToken is a CDEVD_TOKEN long enough to be accepted.
const envToken = "env-token-0123456789abcdef0123456789"

// CDEVD_TOKEN is trimmed like a presented token, and refused when short.
func TestEnvTokenTrimmedAndLongEnough(t *testing.T) {
	env := map[string]string{"CDEVD_HOME": t.TempDir(), "CDEVD_TOKEN": "  " + envToken + "\n"}
	if got, _, code := runCmd(t, env, "token"); code != 0 || got != envToken+"\n" {
		t.Fatalf("token with spaces: %q (exit %d), want it trimmed", got, code)
	}
	for _, short := range []string{"x", " x ", strings.Repeat("a", daemon.MinTokenLength-1)} {
		env["CDEVD_TOKEN"] = short
		for _, args := range [][]string{{"serve", "--addr", "127.0.0.1:0"}, {"token"}} {
			_, errs, code := runCmd(t, env, args...)
			if code != 1 || !strings.Contains(errs, "CDEVD_TOKEN") || !strings.Contains(errs, "at least 32") {
				t.Errorf("%v with CDEVD_TOKEN %q: exit %d, %q; want a refusal saying why", args, short, code, errs)
			}
		}
	}
}

// A state directory other users can write to, or a token file they can
// read, stops cdevd with the command that fixes it.
func TestOpenPermissionsRefused(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CDEVD_HOME": home, "CDEVD_TOKEN": ""}
	if _, _, code := runCmd(t, env, "token"); code != 0 {
		t.Fatal("token")
	}
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"serve", "--addr", "127.0.0.1:0"}, {"token"}, {"token", "--rotate"}} {
		_, errs, code := runCmd(t, env, args...)
		if code != 1 || !strings.Contains(errs, "writable by other users") || !strings.Contains(errs, "chmod 700 "+home) {
			t.Errorf("%v with CDEVD_HOME at 0777: exit %d, %q", args, code, errs)
		}
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(home, "token")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"serve", "--addr", "127.0.0.1:0"}, {"token"}} {
		_, errs, code := runCmd(t, env, args...)
		if code != 1 || !strings.Contains(errs, "readable by other users") || !strings.Contains(errs, "cdevd token --rotate") ||
			!strings.Contains(errs, "chmod 600 "+file) {
			t.Errorf("%v with the token at 0644: exit %d, %q", args, code, errs)
		}
	}
	// The fix the message gives works.
	if _, errs, code := runCmd(t, env, "token", "--rotate"); code != 0 {
		t.Fatalf("token --rotate: exit %d, %q", code, errs)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token after --rotate: %v %v", fi.Mode(), err)
	}
	if _, errs, code := runCmd(t, env, "token"); code != 0 {
		t.Fatalf("token after the fix: exit %d, %q", code, errs)
	}
}

// A config.toml others could have written names commands cdevd would
// run: serve and doctor stop with the chmod that fixes it.
func TestConfigOthersCanWriteRefused(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CDEVD_HOME": home, "CDEVD_TOKEN": "", "CLAUDE_BIN": "/nonexistent/claude",
		"CODEX_BIN": "/nonexistent/codex", "GEMINI_BIN": "/nonexistent/gemini"}
	file := filepath.Join(home, "config.toml")
	if err := os.WriteFile(file, []byte("[[acp_agent]]\nid = \"x\"\ncommand = \"/nonexistent/x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	says := func(errs string) bool {
		return strings.Contains(errs, file+" is writable by other users") && strings.Contains(errs, "chmod 600 "+file)
	}
	if _, errs, code := runCmd(t, env, "doctor"); code != 1 || !says(errs) {
		t.Errorf("doctor with config.toml at 0666: exit %d, %q", code, errs)
	}
	// serve in a process of its own, so that one that does not stop fails
	// the test at the deadline instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	serve := exec.CommandContext(ctx, os.Args[0], "serve", "--addr", "127.0.0.1:0")
	serve.Env = append(os.Environ(), "CDEVD_TEST_MAIN=1")
	var errb bytes.Buffer
	serve.Stderr = &errb
	if err := serve.Run(); ctx.Err() != nil || err == nil || !says(errb.String()) {
		t.Errorf("serve with config.toml at 0666: %v (deadline: %v), %q", err, ctx.Err(), errb.String())
	}
	// The fix the message gives works.
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	// (doctor still exits 1: none of the runtimes' CLIs is there.)
	if _, errs, _ := runCmd(t, env, "doctor"); says(errs) || !strings.HasPrefix(errs, "cdevd: 4 runtime(s) cannot be used") {
		t.Fatalf("doctor after the fix: %q", errs)
	}
}

// --allow-origin null would admit any page (sandboxed iframes, file://);
// values that are not origins would never match.
func TestAllowOriginChecked(t *testing.T) {
	env := map[string]string{"CDEVD_HOME": t.TempDir(), "CDEVD_TOKEN": ""}
	for origin, want := range map[string]string{
		"null":                  "any web page",
		"NULL":                  "any web page",
		"https://app.example/x": "not an origin",
		"app.example":           "not an origin",
	} {
		_, errs, code := runCmd(t, env, "serve", "--addr", "127.0.0.1:0", "--allow-origin", origin)
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("--allow-origin %s: exit %d, %q; want a refusal saying %q", origin, code, errs, want)
		}
	}
}

func TestOpenRPCAndVersion(t *testing.T) {
	out, _, code := runCmd(t, nil, "openrpc")
	if code != 0 || out != string(openrpc.Document) {
		t.Fatal("cdevd openrpc must print the committed document")
	}
	if out, _, _ := runCmd(t, nil, "version"); !strings.HasPrefix(out, "cdevd ") {
		t.Fatalf("version = %q", out)
	}
	if _, errs, code := runCmd(t, nil, "frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Fatalf("unknown command: exit %d, %q", code, errs)
	}
}

func TestDoctorExplainsAMissingCLI(t *testing.T) {
	out, _, code := runCmd(t, map[string]string{"CLAUDE_BIN": "/nonexistent/claude", "CDEVD_HOME": t.TempDir()}, "doctor")
	if code != 1 || !strings.Contains(out, "claude") || !strings.Contains(out, "disabled") {
		t.Fatalf("doctor (exit %d):\n%s", code, out)
	}
}

func TestServeRefusesNonLoopbackWithoutFlag(t *testing.T) {
	_, errs, code := runCmd(t, map[string]string{"CDEVD_HOME": t.TempDir()}, "serve", "--addr", "0.0.0.0:0")
	if code == 0 || !strings.Contains(errs, "--allow-remote") {
		t.Fatalf("exit %d, %q", code, errs)
	}
}

// TestServeAndSIGTERM runs `cdevd serve` as a user would: it prints its
// URL, accepts a client, and on SIGTERM closes the socket with a close
// frame and exits 0.
func TestServeAndSIGTERM(t *testing.T) {
	home := t.TempDir()
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--workspace", ws, "--log-format", "json")
	cmd.Env = append(os.Environ(), "CDEVD_TEST_MAIN=1", "CDEVD_HOME="+home, "CDEVD_TOKEN=  "+envToken+" ",
		"CLAUDE_BIN=/nonexistent/claude")
	// A pipe of the test's own rather than StdoutPipe, which Wait closes:
	// everything serve prints, up to its exit, is read.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	cmd.Stdout = stdoutW
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // belt and braces if an assertion fails
	printed := &syncBuffer{} // all of stdout, checked for the token at the end
	lines := bufio.NewScanner(io.TeeReader(stdout, printed))
	if !lines.Scan() {
		t.Fatalf("no output; stderr: %s", stderr.String())
	}
	url := regexp.MustCompile(`ws://127\.0\.0\.1:\d+/ws`).FindString(lines.Text())
	if url == "" {
		t.Fatalf("first line has no ws:// URL: %q", lines.Text())
	}
	if !lines.Scan() || !strings.Contains(lines.Text(), "CDEVD_TOKEN") {
		t.Fatalf("second line should say where the token comes from: %q", lines.Text())
	}
	// stdout is a pipe, as under a service manager: what is printed there
	// is kept, so the console URL comes without the token.
	if !lines.Scan() || !regexp.MustCompile("^console: open http://127\\.0\\.0\\.1:\\d+/ and paste the token `cdevd token` prints \\(the one-time link that pairs it is printed only on a terminal\\)$").MatchString(lines.Text()) {
		t.Fatalf("third line should be the console URL without the token: %q", lines.Text())
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for lines.Scan() {
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, url,
		http.Header{"Authorization": {"Bearer " + envToken}}) // CDEVD_TOKEN trimmed, as this one is
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var closeErr *websocket.CloseError
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			if !errors.As(err, &closeErr) || closeErr.Code != websocket.CloseGoingAway {
				t.Fatalf("socket ended with %v, want close frame 1001", err)
			}
			break
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("cdevd did not exit after SIGTERM")
	}
	if strings.Contains(stderr.String(), envToken) {
		t.Fatal("the token appeared in the logs")
	}
	<-drained
	if strings.Contains(printed.String(), envToken) {
		t.Fatalf("the token appeared on stdout, which is not a terminal:\n%s", printed.String())
	}
}
