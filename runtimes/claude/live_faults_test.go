package claude

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
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// faultWithin bounds a failing turn with one retry (CLAUDE_CODE_MAX_RETRIES
// = 1, the CLI's own setting; its default is 10, each shown as a retry).
const faultWithin = 45 * time.Second

// TestLiveAPIFaults: the real CLI against a fake API that answers 401, 429,
// 500 or 400, or a port that refuses connections. Each turn ends within
// faultWithin with one error whose code says why and whose message is the
// CLI's words once, after the one retry the CLI was allowed, shown as
// attempt 1 of 1 (none for a 400, which the CLI does not retry). A 401 disables the runtime by the time the client hears
// of it; the other faults say nothing of login and leave it active. These
// cases replace the stream goldens once captured by hand (api_*.jsonl,
// result_api_error.jsonl).
func TestLiveAPIFaults(t *testing.T) {
	api := fakeanthropic.New(t)
	api.Respond(func(r fakeanthropic.Request) fakeanthropic.Reply {
		switch r.LastUserText() {
		case "401":
			return fakeanthropic.Fail(401, "authentication_error", "fake says 401")
		case "429":
			return fakeanthropic.Fail(429, "rate_limit_error", "fake says 429")
		case "500":
			return fakeanthropic.Fail(500, "api_error", "fake says 500")
		case "400":
			return fakeanthropic.Fail(400, "invalid_request_error", "fake says 400")
		}
		return fakeanthropic.Echo(r)
	})
	refused := "http://" + clitest.ClosedAddr(t)
	for _, c := range []struct {
		prompt, url, code string
		message           []string // what the error's message says
		retryCode         string   // the code of the one retry shown; "": none (a 400 is not retried)
	}{
		{"401", api.URL(), runtimes.CodeAuthRequired, []string{"Failed to authenticate", "401 fake says 401"}, runtimes.CodeAuthRequired},
		{"429", api.URL(), runtimes.CodeRateLimited, []string{"Request rejected (429)", "fake says 429"}, runtimes.CodeRateLimited},
		{"500", api.URL(), runtimes.CodeServerError, []string{"API Error: 500 fake says 500"}, runtimes.CodeServerError},
		{"400", api.URL(), runtimes.CodeRefused, []string{"API Error: 400 fake says 400"}, ""},
		{"refused", refused, runtimes.CodeUnreachable, []string{"Unable to connect to API (ConnectionRefused)"}, runtimes.CodeUnreachable},
	} {
		t.Run(c.prompt, func(t *testing.T) {
			t.Parallel()
			a := New(Config{Bin: claudetest.Bin(t), Env: append(claudetest.Env(t, c.url), "CLAUDE_CODE_MAX_RETRIES=1"),
				KillGrace: 2 * time.Second, Logger: zaptest.NewLogger(t)})
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
			if end.Failed.Code != c.code {
				t.Errorf("code %q, want %q", end.Failed.Code, c.code)
			}
			for _, m := range c.message {
				if !strings.Contains(end.Failed.Message, m) {
					t.Errorf("message %q does not say %q", end.Failed.Message, m)
				}
			}
			if strings.Count(end.Failed.Message, "API Error") > 1 {
				t.Errorf("message %q says it twice", end.Failed.Message)
			}
			switch {
			case c.retryCode == "" && len(end.Retries) != 0:
				t.Errorf("retries shown %+v, want none", end.Retries)
			case c.retryCode != "" && (len(end.Retries) != 1 || end.Retries[0].Attempt != 1 ||
				end.Retries[0].MaxAttempts != 1 || end.Retries[0].Code != c.retryCode):
				t.Errorf("retries shown %+v, want attempt 1 of 1 (%s)", end.Retries, c.retryCode)
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
