package acp

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// fetchFailed is Node's fetch's message for a request that got no answer.
const fetchFailed = "fetch failed"

// promptFailure is the TurnFailed of a session/prompt that ended with err.
// An agent that reports a failed model call puts the API's HTTP status in
// the error's code (Gemini 0.61.0: {"code":401,"message":"{\"error\":{…}}"}):
// it is classified by that status, and its message is the API's own words,
// once. A JSON-RPC error (negative code) is runtime_error with the agent's
// message and data.details, without the error chain around them.
//
// A model call that never reached the API is unreachable, though the agent
// may give it a status: Gemini 0.61.0 reports a refused connection (after
// its retries) as {"code":500,"message":"exception TypeError: fetch failed
// sending request"}. "fetch failed" is what Node's fetch says when it got
// no answer at all (refused, reset, DNS, TLS), and what Gemini itself looks
// for to decide that a call may be retried, so it tells no answer from a 5xx.
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
	switch {
	case rerr.Code >= 500 && rerr.Code <= 599 && strings.Contains(strings.ToLower(msg), fetchFailed):
		code = runtimes.CodeUnreachable
	case rerr.Code >= 400 && rerr.Code <= 599:
		code = runtimes.CodeForHTTPStatus(rerr.Code)
	}
	return runtimes.TurnFailed{Code: code, Message: msg}
}
