package codex

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// faultWithin bounds a failing turn: Codex's own retries with its default
// settings (stream_max_retries 5, each announced; request_max_retries 4,
// not announced) take about 25 s for a 500, and cdevd ends a turn whose API
// refuses connections at its networkWaits-th notice (Codex itself would
// wait for the network without end), about 20 s after the first try.
const faultWithin = 60 * time.Second

// streamRetries is Codex's default stream_max_retries (0.169.0): a stream
// that fails is announced as "Reconnecting... n/5".
const streamRetries = 5

// TestLiveAPIFaults: the real app-server, with Codex's default retry
// settings, against a fake Responses API that answers 401, 429 or 500, or
// a port that refuses connections. Each turn ends within faultWithin with
// one error whose code says why and whose message is Codex's words once;
// the retries Codex announces are shown as they come (attempt n of m). A
// 401 disables the runtime by the time the client hears of it; the other
// faults leave it active. These cases replace the app-server goldens once
// captured by hand (api_*.jsonl).
func TestLiveAPIFaults(t *testing.T) {
	api := fakeopenai.New(t)
	api.Respond(func(r fakeopenai.Request) fakeopenai.Reply {
		switch r.LastUserText() {
		case "401":
			return fakeopenai.Fail(401, "invalid_request_error", "fake says 401")
		case "429":
			return fakeopenai.Fail(429, "rate_limit_exceeded", "fake says 429")
		case "500":
			return fakeopenai.Fail(500, "server_error", "fake says 500")
		}
		return fakeopenai.Echo(r)
	})
	refused := "http://" + clitest.ClosedAddr(t) + "/v1"
	for _, c := range []struct {
		prompt, baseURL, code string
		message               string // what the error's message says
		// The retries shown: attempts 1..retries of maxAttempts (0: Codex
		// names no bound), each with retryCode.
		retries, maxAttempts int
		retryCode            string
	}{
		// Codex retries a 401 as a broken stream, and names it.
		{"401", api.BaseURL(), runtimes.CodeAuthRequired, "unexpected status 401 Unauthorized: fake says 401",
			streamRetries, streamRetries, runtimes.CodeAuthRequired},
		// A 429's retries are the request's, which Codex does not announce.
		{"429", api.BaseURL(), runtimes.CodeRateLimited, "exceeded retry limit, last status: 429 Too Many Requests", 0, 0, ""},
		// A 500 is retried as a broken stream without its status (0.169.0).
		{"500", api.BaseURL(), runtimes.CodeServerError, "We’re currently experiencing high demand",
			streamRetries, streamRetries, ""},
		// Codex waits for the network without end: cdevd shows its first
		// notices and ends the turn at the networkWaits-th.
		{"refused", refused, runtimes.CodeUnreachable, "Connection failed: error sending request",
			networkWaits - 1, 0, runtimes.CodeUnreachable},
	} {
		t.Run(c.prompt, func(t *testing.T) {
			t.Parallel()
			a := New(Config{Bin: codextest.Bin(t), Env: codextest.Env(t, c.baseURL), KillGrace: 2 * time.Second, Logger: zaptest.NewLogger(t)})
			reg, err := registry.New(a)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(reg.Close)
			if rec := reg.Snapshot(context.Background()).Runtimes[0]; rec.Status != rpc.RuntimeActive {
				t.Fatalf("before the turn: %+v", rec.Availability)
			}
			var atEnd rpc.Runtime
			end := adaptertest.RunFault(t, adaptertest.Fault{Adapter: a, Dir: t.TempDir(), Prompt: c.prompt, Within: faultWithin,
				AtEnd: func(runtimes.Event) { atEnd = reg.Snapshot(context.Background()).Runtimes[0] }, Next: next(c.prompt)})
			if end.Failed.Code != c.code || !strings.Contains(end.Failed.Message, c.message) {
				t.Errorf("failed %+v, want %s saying %q", end.Failed, c.code, c.message)
			}
			if len(end.Retries) != c.retries {
				t.Fatalf("retries shown %+v, want %d", end.Retries, c.retries)
			}
			for i, r := range end.Retries {
				if r.Attempt != i+1 || r.MaxAttempts != c.maxAttempts || r.Code != c.retryCode ||
					!strings.HasPrefix(r.Message, "Reconnecting...") || !strings.Contains(r.Message, c.message) {
					t.Errorf("retry %d: %+v, want attempt %d of %d (%q), saying Reconnecting... and %q",
						i, r, i+1, c.maxAttempts, c.retryCode, c.message)
				}
			}
			adaptertest.CheckRecordAfterFault(t, reg, ID, c.code, atEnd, loginFix)
		})
	}
}

// next is the prompt sent after a 500, whose turn must complete: the
// session outlives a failed turn.
func next(prompt string) string {
	if prompt == "500" {
		return "hello after a 500"
	}
	return ""
}
