package codex

// Rate limits and context, from Codex's own notifications:
// account/rateLimits/updated (built from the API's x-codex-primary-… and
// x-codex-secondary-… headers; a sparse update, null where unknown) and
// thread/tokenUsage/updated (the last call's tokens and modelContextWindow).

import (
	"encoding/json"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// rateLimitWindow is one window of a RateLimitSnapshot (0.169.0 schema).
type rateLimitWindow struct {
	UsedPercent        *float64 `json:"usedPercent"`
	WindowDurationMins *int64   `json:"windowDurationMins"`
	ResetsAt           *int64   `json:"resetsAt"`
}

// onRateLimits reports the windows an account/rateLimits/updated names.
// Codex keeps other limits than its own beside it (limitId); their windows
// are named after them.
func (s *session) onRateLimits(params json.RawMessage) {
	var p struct {
		RateLimits struct {
			LimitID              string           `json:"limitId"`
			Primary              *rateLimitWindow `json:"primary"`
			Secondary            *rateLimitWindow `json:"secondary"`
			RateLimitReachedType *string          `json:"rateLimitReachedType"`
		} `json:"rateLimits"`
	}
	if !s.decode("account/rateLimits/updated", params, &p) {
		return
	}
	rl := p.RateLimits
	prefix := ""
	if rl.LimitID != "" && rl.LimitID != "codex" {
		prefix = rl.LimitID + "/"
	}
	var windows []rpc.RateLimitWindow
	for _, w := range []struct {
		id  string
		win *rateLimitWindow
	}{{"primary", rl.Primary}, {"secondary", rl.Secondary}} {
		if w.win == nil || w.win.UsedPercent == nil {
			continue
		}
		used := min(max(*w.win.UsedPercent, 0), 100)
		out := rpc.RateLimitWindow{ID: prefix + w.id, UsedPercent: &used, Status: rpc.LimitAllowed}
		if used >= 100 {
			out.Status = rpc.LimitRejected
		}
		if w.win.WindowDurationMins != nil && *w.win.WindowDurationMins > 0 {
			out.WindowMinutes = *w.win.WindowDurationMins
		}
		if w.win.ResetsAt != nil && *w.win.ResetsAt > 0 {
			out.ResetsAt = rpc.FormatTime(time.Unix(*w.win.ResetsAt, 0))
		}
		windows = append(windows, out)
	}
	if len(windows) > 0 {
		s.em.Emit(runtimes.RateLimitsUpdated{Windows: windows})
	}
}

// contextOf is the context's use a thread/tokenUsage/updated gives: the
// last call's tokens (what Codex's own meter counts) in the model's window.
func contextOf(last tokenCount, window *int64) runtimes.ContextUpdated {
	c := rpc.ContextUsage{UsedTokens: last.InputTokens + last.OutputTokens}
	if window != nil && *window > 0 {
		c.WindowTokens = *window
	}
	return runtimes.ContextUpdated{Context: c}
}
