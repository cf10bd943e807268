// Package claudetest is the harness for tests that run the real Claude Code
// CLI: where the pinned binary is, and a clean, hermetic environment that
// points it at a fake model API on loopback. A missing CLI fails the test
// rather than skipping it, so that CI cannot pass without exercising it.
package claudetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/clitest"
)

// Timeout bounds one real-CLI test: Claude retries a failing API for
// minutes, so nothing may wait on it unbounded.
const Timeout = 90 * time.Second

// Bin is the claude CLI to test: $CLAUDE_BIN, else the one npm ci installed
// under the repository root; a missing CLI fails the test.
func Bin(t testing.TB) string {
	t.Helper()
	return clitest.Bin(t, "CLAUDE_BIN", "claude")
}

// Env is the CLI's whole environment for one test: PATH from the outer
// environment and nothing else of it (no real keys), a fresh HOME, the fake
// API at apiURL, no telemetry or updates, and proxies pointing at a closed
// local port so that any attempt to reach the internet fails at once.
func Env(t testing.TB, apiURL string) []string {
	t.Helper()
	return Point(clitest.Env(t), apiURL, "test")
}

// Point adds to env what points the CLI at the fake API at apiURL with
// key, with no telemetry or updates (the demo uses it too).
func Point(env []string, apiURL, key string) []string {
	return append(env,
		"ANTHROPIC_BASE_URL="+apiURL,
		"ANTHROPIC_API_KEY="+key,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
	)
}

// Home is the HOME that env sets.
func Home(env []string) string { return clitest.Home(env) }

// Context is a context bounded by Timeout and cancelled when the test ends.
func Context(t testing.TB) context.Context { return clitest.Context(t, Timeout) }

// SubscriberToken is the claude.ai login a Subscriber environment carries.
const SubscriberToken = "sk-ant-oat01-fake-subscriber"

// Subscriber is env logged in to a claude.ai plan instead of an API key:
// CLAUDE_CODE_OAUTH_TOKEN, which the CLI sends as a bearer token to the same
// API. Only such a login makes the CLI read the plan's limits from the
// API's anthropic-ratelimit-unified-* headers and report them.
func Subscriber(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") {
			out = append(out, kv)
		}
	}
	return append(out, "CLAUDE_CODE_OAUTH_TOKEN="+SubscriberToken)
}
