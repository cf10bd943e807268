// Package codextest is the harness for tests that run the real Codex CLI:
// where the pinned binary is, and a clean, hermetic environment that points
// it at a fake Responses API on loopback (internal/fakeopenai). A missing CLI
// fails the test rather than skipping it, so that CI cannot pass without
// exercising it.
package codextest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Timeout bounds one real-CLI test: Codex retries a failing API with
// backoff, so nothing may wait on it unbounded.
const Timeout = 90 * time.Second

// Bin is the Codex CLI to test: $CODEX_BIN, else the one npm ci installed
// under the repository root.
func Bin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("CODEX_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot(t), "node_modules", ".bin", "codex")
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("codex CLI not found (%v): run npm ci at the repository root, or set CODEX_BIN", err)
	}
	return bin
}

func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("codextest: cannot locate the repository root")
	}
	// file is <root>/runtimes/codex/codextest/codextest.go.
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Model is the model the config names; the fake accepts any.
const Model = "gpt-5.5"

// APIKey is the OPENAI_API_KEY the environment carries; Codex sends it as
// Authorization: Bearer.
const APIKey = "test-codex-key"

// Env is the CLI's whole environment for one test: PATH from the outer
// environment and nothing else of it (no real keys), a fresh HOME whose
// .codex/config.toml points Codex at the fake Responses API under baseURL
// (the fake's BaseURL, ending in /v1) with analytics, plugins and the update
// check off, and proxies pointing at a closed local port so that any
// attempt to reach the internet fails at once.
//
// CODEX_HOME is deliberately not set: Codex finds $HOME/.codex as on a
// user's machine, and initialize reports it as codexHome.
func Env(t testing.TB, baseURL string) []string {
	t.Helper()
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`model = %q
model_provider = "fake"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
`, Model, baseURL)
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	proxy := "http://" + closedAddr(t)
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"OPENAI_API_KEY=" + APIKey,
		"HTTPS_PROXY=" + proxy,
		"HTTP_PROXY=" + proxy,
		"https_proxy=" + proxy,
		"http_proxy=" + proxy,
		// Loopback must still reach the fake despite the proxies.
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
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
