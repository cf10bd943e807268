package codex

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// errorParams is the "error" notification: a model call failed, and Codex
// either retries it (willRetry, its message "Reconnecting... n/m" or
// "Reconnecting... waiting for network") or gives up on the turn, whose
// turn/completed (status failed) follows with the same error.
type errorParams struct {
	Error     turnError `json:"error"`
	WillRetry bool      `json:"willRetry"`
	TurnID    string    `json:"turnId"`
}

// turnError is Codex's TurnError: its words, and codexErrorInfo, either a
// name ("unauthorized", "usageLimitExceeded", "internalServerError", …) or
// an object naming the failure with the HTTP status, if any
// ({"httpConnectionFailed":{"httpStatusCode":401}}).
type turnError struct {
	Message           string          `json:"message"`
	CodexErrorInfo    json.RawMessage `json:"codexErrorInfo"`
	AdditionalDetails string          `json:"additionalDetails"`
}

// code classifies the error from codexErrorInfo (0.169.0).
func (e turnError) code() string {
	var name string
	if json.Unmarshal(e.CodexErrorInfo, &name) == nil {
		switch name {
		case "unauthorized":
			return runtimes.CodeAuthRequired
		case "usageLimitExceeded":
			return runtimes.CodeRateLimited
		case "internalServerError", "serverOverloaded":
			return runtimes.CodeServerError
		case "badRequest", "contextWindowExceeded":
			return runtimes.CodeRefused
		}
		return runtimes.CodeRuntimeError
	}
	var withStatus map[string]struct {
		HTTPStatusCode *int `json:"httpStatusCode"`
	}
	if json.Unmarshal(e.CodexErrorInfo, &withStatus) != nil || len(withStatus) != 1 {
		return runtimes.CodeRuntimeError
	}
	for _, v := range withStatus {
		if v.HTTPStatusCode == nil {
			return runtimes.CodeUnreachable // no HTTP answer at all
		}
		return runtimes.CodeForHTTPStatus(*v.HTTPStatusCode)
	}
	return runtimes.CodeRuntimeError
}

// attemptOf is the n/m of "Reconnecting... n/m".
var attemptOf = regexp.MustCompile(`(\d+)/(\d+)`)

// networkWaits is how many "Reconnecting... waiting for network" notices
// of one turn cdevd lets pass: Codex waits for the network without end
// (0.169.0, with request_max_retries set or not), so cdevd ends the turn
// as unreachable and interrupts it (about 20 s after the first try).
var networkWaits = 3

// onError shows a retry as one, or ends the turn with the error. The
// turn/completed that follows a final error changes nothing (endTurn ends
// a turn once).
func (s *session) onError(p errorParams) {
	e := p.Error
	if !p.WillRetry {
		s.failTurn(p.TurnID, runtimes.TurnFailed{Code: e.code(), Message: e.Message})
		return
	}
	s.log.Info("codex: model call failed; Codex retries", zap.String("error", e.Message),
		zap.String("details", e.AdditionalDetails))
	s.mu.Lock()
	if s.retryTurn != p.TurnID {
		s.retryTurn, s.retries = p.TurnID, 0
	}
	s.retries++
	attempt := s.retries
	s.mu.Unlock()
	r := rpc.Retry{Attempt: attempt, Code: e.code(), Message: e.Message}
	if m := attemptOf.FindStringSubmatch(e.Message); m != nil {
		r.Attempt, _ = strconv.Atoi(m[1])
		r.MaxAttempts, _ = strconv.Atoi(m[2])
	}
	if r.MaxAttempts > 0 && r.Code == runtimes.CodeUnreachable {
		// A stream that broke without a status: a 5xx as well (0.169.0).
		r.Code = ""
	}
	if e.AdditionalDetails != "" {
		r.Message += " (" + e.AdditionalDetails + ")"
	}
	if r.MaxAttempts == 0 && r.Code == runtimes.CodeUnreachable && attempt >= networkWaits {
		msg := e.AdditionalDetails
		if msg == "" {
			msg = e.Message
		}
		s.giveUp(p.TurnID, msg)
		return
	}
	s.turn.Retrying(r)
}

// giveUp ends a turn whose model Codex cannot reach, then interrupts it in
// Codex, which would otherwise go on waiting for the network.
func (s *session) giveUp(turnID, msg string) {
	s.log.Warn("codex: the model API stays unreachable; cdevd ends the turn", zap.String("error", msg))
	s.failTurn(turnID, runtimes.TurnFailed{Code: runtimes.CodeUnreachable, Message: msg})
	if s.peer == nil {
		return // a replay
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		if err := s.peer.Call(ctx, "turn/interrupt", map[string]string{"threadId": s.id, "turnId": turnID}, nil); err != nil {
			s.log.Info("codex: could not interrupt a turn given up", zap.Error(err))
		}
	}()
}

// failTurn ends the turn with a failure; an auth_required one is reported.
func (s *session) failTurn(turnID string, failed runtimes.TurnFailed) {
	s.closeStreaming()
	if s.endTurn(turnID, failed) && failed.Code == runtimes.CodeAuthRequired {
		s.reportAuth(failed.Message)
	}
}

// reportAuth is THE place where a Codex turn revealed a login problem
// (auth_required). Hook for the registry (issue 24, item 4): wire the
// "login problem -> flip the runtime's record" call here; for now it logs.
func (s *session) reportAuth(reason string) {
	s.log.Warn("codex: not logged in, or its credentials were refused", zap.String("reason", reason))
}
