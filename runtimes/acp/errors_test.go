package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// TestPromptFailure: a failed model call is classified by the HTTP status
// the agent puts in the error's code, and says the API's words once; one
// that got no answer at all (Node's "fetch failed", which Gemini reports
// with code 500) is unreachable.
func TestPromptFailure(t *testing.T) {
	api := func(code int, status, msg string) error {
		return fmt.Errorf("call: %w", &stdiorpc.Error{Code: code,
			Message: fmt.Sprintf(`{"error":{"code":%d,"status":%q,"message":%q}}`, code, status, msg)})
	}
	for _, c := range []struct {
		err  error
		want runtimes.TurnFailed
	}{
		{api(401, "UNAUTHENTICATED", "API key not valid"), runtimes.TurnFailed{Code: "auth_required", Message: "API key not valid"}},
		{api(403, "PERMISSION_DENIED", "denied"), runtimes.TurnFailed{Code: "auth_required", Message: "denied"}},
		{api(429, "RESOURCE_EXHAUSTED", "quota"), runtimes.TurnFailed{Code: "rate_limited", Message: "quota"}},
		{api(500, "INTERNAL", "boom"), runtimes.TurnFailed{Code: "server_error", Message: "boom"}},
		{api(400, "INVALID_ARGUMENT", "bad"), runtimes.TurnFailed{Code: "refused", Message: "bad"}},
		{&stdiorpc.Error{Code: 500, Message: "exception TypeError: fetch failed sending request"},
			runtimes.TurnFailed{Code: "unreachable", Message: "exception TypeError: fetch failed sending request"}},
		{api(503, "UNAVAILABLE", "the model is overloaded"), runtimes.TurnFailed{Code: "server_error", Message: "the model is overloaded"}},
		{&stdiorpc.Error{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"details":"fetch failed"}`)},
			runtimes.TurnFailed{Code: "runtime_error", Message: "Internal error: fetch failed"}},
		{errors.New("broken pipe"), runtimes.TurnFailed{Code: "runtime_error", Message: "gemini: broken pipe"}},
	} {
		if got := promptFailure("gemini", c.err); got != c.want {
			t.Errorf("%v: got %+v, want %+v", c.err, got, c.want)
		}
	}
}
