// Package clitest is what every real-CLI test harness (claudetest,
// codextest, …) shares: finding the pinned binary that npm ci installed,
// and a hermetic base environment in which any attempt to reach the
// internet fails at once. Each harness adds its CLI's own settings.
package clitest

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

// Bin is the CLI to test: $envVar, else node_modules/.bin/name under the
// repository root. A missing CLI fails the test, never skips it, so that CI
// cannot pass without exercising it.
func Bin(t testing.TB, envVar, name string) string {
	t.Helper()
	bin := os.Getenv(envVar)
	if bin == "" {
		bin = filepath.Join(repoRoot(t), "node_modules", ".bin", name)
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s CLI not found (%v): run npm ci at the repository root, or set %s", name, err, envVar)
	}
	return bin
}

func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("clitest: cannot locate the repository root")
	}
	// file is <root>/internal/clitest/clitest.go.
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Env is the base of a CLI's whole environment for one test: PATH from the
// outer environment and nothing else of it (no real keys), a fresh HOME and
// TMPDIR, and proxies (both spellings) pointing at a closed local port, with
// loopback exempt so that the fake model API stays reachable.
func Env(t testing.TB) []string {
	t.Helper()
	return Hermetic(t.TempDir(), t.TempDir(), ClosedAddr(t))
}

// Hermetic is such an environment with HOME home, TMPDIR tmp and proxies at
// closed, a loopback address nothing listens on. The demo (cdevd serve
// --demo) runs the CLIs in it too.
func Hermetic(home, tmp, closed string) []string {
	proxy := "http://" + closed
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"HTTPS_PROXY=" + proxy,
		"HTTP_PROXY=" + proxy,
		"https_proxy=" + proxy,
		"http_proxy=" + proxy,
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
	}
}

// ClosedAddr is a loopback address nothing listens on (the proxies', and
// a model API that refuses connections).
func ClosedAddr(t testing.TB) string {
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

// Context is a context bounded by timeout and cancelled when the test ends.
func Context(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}
