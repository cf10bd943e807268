// Package codextest is the harness for tests that run the real Codex CLI:
// where the pinned binary is, and a clean, hermetic environment that points
// it at a fake Responses API on loopback (testdoubles/fakeopenai). A missing CLI
// fails the test rather than skipping it, so that CI cannot pass without
// exercising it.
package codextest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/clitest"
)

// Timeout bounds one real-CLI test: Codex retries a failing API with
// backoff, so nothing may wait on it unbounded.
const Timeout = 90 * time.Second

// Bin is the codex CLI to test: $CODEX_BIN, else the one npm ci installed
// under the repository root; a missing CLI fails the test.
func Bin(t testing.TB) string {
	t.Helper()
	return clitest.Bin(t, "CODEX_BIN", "codex")
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
	env, err := Point(clitest.Env(t), baseURL, APIKey)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// Point adds to env the key, and writes in its HOME the config.toml, that
// point the CLI at the fake Responses API under baseURL (the demo uses it
// too).
func Point(env []string, baseURL, key string) ([]string, error) {
	env = append(env, "OPENAI_API_KEY="+key)
	home := clitest.Home(env)
	if err := os.Mkdir(filepath.Join(home, ".codex"), 0o700); err != nil {
		return nil, err
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
		return nil, err
	}
	return env, nil
}

// Home is the HOME that env sets.
func Home(env []string) string { return clitest.Home(env) }

// Context is a context bounded by Timeout and cancelled when the test ends.
func Context(t testing.TB) context.Context { return clitest.Context(t, Timeout) }
