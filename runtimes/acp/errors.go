package acp

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// promptFailure is the TurnFailed of a session/prompt that ended with err.
// An agent that reports a failed model call puts the API's HTTP status in
// the error's code (Gemini 0.61.0: {"code":401,"message":"{\"error\":{…}}"}):
// it is classified by that status, and its message is the API's own words,
// once. A JSON-RPC error (negative code) is runtime_error with the agent's
// message and data.details, without the error chain around them.
func promptFailure(agent string, err error) runtimes.TurnFailed {
	var rerr *stdiorpc.Error
	if !errors.As(err, &rerr) {
		return runtimes.TurnFailed{Code: runtimes.CodeRuntimeError, Message: agent + ": " + err.Error()}
	}
	msg := rerr.Message
	var api struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(msg), &api) == nil && api.Error.Message != "" {
		msg = api.Error.Message
	}
	var data struct {
		Details string `json:"details"`
	}
	if json.Unmarshal(rerr.Data, &data) == nil && data.Details != "" && !strings.Contains(msg, data.Details) {
		msg += ": " + data.Details
	}
	code := runtimes.CodeRuntimeError
	if rerr.Code >= 400 && rerr.Code <= 599 {
		code = runtimes.CodeForHTTPStatus(rerr.Code)
	}
	return runtimes.TurnFailed{Code: code, Message: msg}
}
