package codex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// TestAPIErrorsEndTheTurnOnce replays what the real app-server (0.169.0)
// printed against the fake API answering 401, 429, 500 and from a closed
// port (request_max_retries = stream_max_retries = 1): each retry is
// shown, and the turn ends with one error carrying a stable code and the
// CLI's words once, also when Codex would wait for the network forever.
func TestAPIErrorsEndTheTurnOnce(t *testing.T) {
	for name, want := range map[string]struct {
		code, message string
		retries       []rpc.Retry
	}{
		"api_401_auth": {"auth_required", "unexpected status 401 Unauthorized: fake says 401, url: http://127.0.0.1:19401/v1/responses",
			[]rpc.Retry{{Attempt: 1, MaxAttempts: 1, Code: "auth_required", Message: "Reconnecting... 1/1 (unexpected status 401 Unauthorized: fake says 401, url: http://127.0.0.1:19401/v1/responses)"}}},
		"api_429_rate_limit": {"rate_limited", "exceeded retry limit, last status: 429 Too Many Requests", nil},
		"api_500_server_error": {"server_error", "We’re currently experiencing high demand, which may cause temporary errors.",
			[]rpc.Retry{{Attempt: 1, MaxAttempts: 1, Message: "Reconnecting... 1/1 (We’re currently experiencing high demand, which may cause temporary errors.)"}}},
		"api_connection_refused": {"unreachable", "Connection failed: error sending request", []rpc.Retry{
			{Attempt: 1, Code: "unreachable", Message: "Reconnecting... waiting for network (Connection failed: error sending request)"},
			{Attempt: 2, Code: "unreachable", Message: "Reconnecting... waiting for network (Connection failed: error sending request)"}}},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(goldenDir, name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var failed []runtimes.TurnFailed
			var retries []rpc.Retry
			for _, ev := range replay(t, b) {
				switch ev := ev.(type) {
				case runtimes.TurnFailed:
					failed = append(failed, ev)
				case runtimes.TurnCompleted:
					t.Errorf("the turn completed: %+v", ev)
				case runtimes.ActivityChanged:
					if ev.Retry != nil {
						retries = append(retries, *ev.Retry)
					}
				}
			}
			// The replay's end adds a cli_exited only if the turn still ran.
			if len(failed) != 1 || failed[0].Code != want.code || failed[0].Message != want.message {
				t.Errorf("TurnFailed %+v, want one {%s %s}", failed, want.code, want.message)
			}
			if len(retries) != len(want.retries) {
				t.Fatalf("retries shown %+v, want %+v", retries, want.retries)
			}
			for i := range retries {
				if retries[i] != want.retries[i] {
					t.Errorf("retry %d is %+v, want %+v", i, retries[i], want.retries[i])
				}
			}
		})
	}
}
