// Package geminitest is the harness for tests that run the real Gemini CLI:
// where the pinned binary is, and a clean, hermetic environment that points
// it at a fake Gemini API on loopback (testdoubles/fakegemini). A missing CLI
// fails the test rather than skipping it, so that CI cannot pass without
// exercising it.
package geminitest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/clitest"
)

// Timeout bounds one real-CLI test: the CLI retries a failing API with
// backoff, so nothing may wait on it unbounded.
const Timeout = 90 * time.Second

// Bin is the gemini CLI to test: $GEMINI_BIN, else the one npm ci installed
// under the repository root; a missing CLI fails the test.
func Bin(t testing.TB) string {
	t.Helper()
	return clitest.Bin(t, "GEMINI_BIN", "gemini")
}

// Model is the model the settings name (also the CLI's default); the fake
// accepts any.
const Model = "gemini-2.5-flash"

// APIKey is the GEMINI_API_KEY the environment carries; the CLI sends it as
// x-goog-api-key.
const APIKey = "test-gemini-key"

// Settings is $HOME/.gemini/settings.json as a user's machine has it:
// API-key auth selected (without it GOOGLE_GEMINI_BASE_URL makes ACP pick
// the gateway auth type), usage statistics, telemetry and update checks
// off.
var Settings = map[string]any{
	"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
	"privacy":   map[string]any{"usageStatisticsEnabled": false},
	"telemetry": map[string]any{"enabled": false},
	"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	"model":     map[string]any{"name": Model},
}

// Env is the CLI's whole environment for one test: clitest.Env (PATH only
// from outside, a fresh HOME and TMPDIR, proxies at a closed port with
// loopback exempt: without NO_PROXY Gemini sends the fake's traffic to the
// proxy and retries silently), the API key, GOOGLE_GEMINI_BASE_URL = url
// (the fake's URL), GEMINI_CLI_NO_RELAUNCH so that one process does the work
// and a signal to it ends it, and HOME/.gemini/settings.json (Settings).
func Env(t testing.TB, url string) []string {
	t.Helper()
	env, err := Point(clitest.Env(t), url, APIKey)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// Point adds to env the key and the settings, written in its HOME, that
// point the CLI at the fake API at url (the demo uses it too).
func Point(env []string, url, key string) ([]string, error) {
	env = append(env,
		"GEMINI_API_KEY="+key,
		"GOOGLE_GEMINI_BASE_URL="+url,
		"GEMINI_CLI_NO_RELAUNCH=true",
	)
	dir := filepath.Join(clitest.Home(env), ".gemini")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(Settings, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o600); err != nil {
		return nil, err
	}
	return env, nil
}

// Home is the HOME that env sets.
func Home(env []string) string { return clitest.Home(env) }

// Context is a context bounded by Timeout and cancelled when the test ends.
func Context(t testing.TB) context.Context { return clitest.Context(t, Timeout) }
