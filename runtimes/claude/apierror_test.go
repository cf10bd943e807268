package claude

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestAPIErrorsEndTheTurnOnce replays what the real CLI (2.1.197) printed
// against the fake API answering 401, 429, 500 and from a closed port
// (CLAUDE_CODE_MAX_RETRIES=1): the retry is shown, the CLI's words for the
// failure are not streamed as an answer, and the turn ends with one error
// carrying a stable code and those words once.
func TestAPIErrorsEndTheTurnOnce(t *testing.T) {
	for name, want := range map[string]struct{ code, message string }{
		"api_401_auth":           {"auth_required", "Failed to authenticate. API Error: 401 fake says 401"},
		"api_429_rate_limit":     {"rate_limited", "API Error: Request rejected (429) · fake says 429"},
		"api_500_server_error":   {"server_error", "API Error: 500 fake says 500. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:18500)."},
		"api_connection_refused": {"unreachable", "API Error: Unable to connect to API (ConnectionRefused)"},
		"result_api_error":       {"refused", "API Error: 400 bad thing"},
	} {
		t.Run(name, func(t *testing.T) {
			var log []struct {
				Event string
				Data  json.RawMessage
			}
			if err := json.Unmarshal(replay(t, filepath.Join("testdata", "stream", name+".jsonl")), &log); err != nil {
				t.Fatal(err)
			}
			var failed []struct{ Code, Message string }
			retries := 0
			for _, e := range log {
				switch e.Event {
				case "MessageCompleted":
					t.Errorf("the failure was streamed as a message: %s", e.Data)
				case "TurnCompleted":
					t.Errorf("the turn completed: %s", e.Data)
				case "TurnFailed":
					var f struct{ Code, Message string }
					_ = json.Unmarshal(e.Data, &f)
					failed = append(failed, f)
				case "ActivityChanged":
					var a struct {
						Retry *struct {
							Attempt     int `json:"attempt"`
							MaxAttempts int `json:"max_attempts"`
						}
					}
					_ = json.Unmarshal(e.Data, &a)
					if a.Retry != nil {
						retries++
						if a.Retry.Attempt != 1 || a.Retry.MaxAttempts != 1 {
							t.Errorf("retry %+v, want attempt 1 of 1", *a.Retry)
						}
					}
				}
			}
			if len(failed) != 1 || failed[0].Code != want.code || failed[0].Message != want.message {
				t.Errorf("TurnFailed %+v, want one %+v", failed, want)
			}
			if name != "result_api_error" && retries != 1 {
				t.Errorf("%d retries shown, want 1", retries)
			}
		})
	}
}
