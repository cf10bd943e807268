// Package claudetest is the harness for tests that run the real Claude Code
// CLI: where the pinned binary is, and a clean, hermetic environment that
// points it at a fake model API on loopback. A missing CLI fails the test
// rather than skipping it, so that CI cannot pass without exercising it.
package claudetest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Timeout bounds one real-CLI test: Claude retries a failing API for
// minutes, so nothing may wait on it unbounded.
const Timeout = 90 * time.Second

// Bin is the Claude CLI to test: $CLAUDE_BIN, else the one npm ci installed
// under the repository root.
func Bin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("CLAUDE_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot(t), "node_modules", ".bin", "claude")
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("claude CLI not found (%v): run npm ci at the repository root, or set CLAUDE_BIN", err)
	}
	return bin
}

func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("claudetest: cannot locate the repository root")
	}
	// file is <root>/runtimes/claude/claudetest/claudetest.go.
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Env is the CLI's whole environment for one test: PATH from the outer
// environment and nothing else of it (no real keys), a fresh HOME, the fake
// API at apiURL, no telemetry or updates, and proxies pointing at a closed
// local port so that any attempt to reach the internet fails at once.
func Env(t testing.TB, apiURL string) []string {
	t.Helper()
	home := t.TempDir()
	proxy := "http://" + closedAddr(t)
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"ANTHROPIC_BASE_URL=" + apiURL,
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"HTTPS_PROXY=" + proxy,
		"HTTP_PROXY=" + proxy,
		// Loopback must still reach the fake despite the proxies.
		"NO_PROXY=127.0.0.1,localhost",
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Home is the HOME that env sets.
func Home(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}

// Context is a context bounded by Timeout and cancelled when the test ends.
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	t.Cleanup(cancel)
	return ctx
}
