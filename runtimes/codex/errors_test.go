package codex

import (
	"encoding/json"
	"testing"

	"github.com/cdevd/cdevd/runtimes"
)

// codexErrorInfo is classified by its name, or by the HTTP status a
// failure with one carries; a failure without any status got no answer.
// (The live fault tests, live_faults_test.go, show these with the real CLI.)
func TestTurnErrorCode(t *testing.T) {
	for info, want := range map[string]string{
		`"unauthorized"`:          runtimes.CodeAuthRequired,
		`"usageLimitExceeded"`:    runtimes.CodeRateLimited,
		`"internalServerError"`:   runtimes.CodeServerError,
		`"serverOverloaded"`:      runtimes.CodeServerError,
		`"badRequest"`:            runtimes.CodeRefused,
		`"contextWindowExceeded"`: runtimes.CodeRefused,
		`"somethingNew"`:          runtimes.CodeRuntimeError,
		`{"responseStreamDisconnected":{"httpStatusCode":401}}`: runtimes.CodeAuthRequired,
		`{"httpConnectionFailed":{"httpStatusCode":429}}`:       runtimes.CodeRateLimited,
		`{"httpConnectionFailed":{"httpStatusCode":503}}`:       runtimes.CodeServerError,
		`{"httpConnectionFailed":{"httpStatusCode":null}}`:      runtimes.CodeUnreachable,
		`{"a":{},"b":{}}`: runtimes.CodeRuntimeError,
		`42`:              runtimes.CodeRuntimeError,
	} {
		if got := (turnError{CodexErrorInfo: json.RawMessage(info)}).code(); got != want {
			t.Errorf("codexErrorInfo %s: %s, want %s", info, got, want)
		}
	}
}
