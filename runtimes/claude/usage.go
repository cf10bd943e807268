package claude

// Rate limits and context, from what Claude Code prints: its
// rate_limit_event lines (for a claude.ai subscription; the CLI builds them
// from the API's anthropic-ratelimit-unified-* headers) and the usage of
// the last model call with the model's context window from the result.

import (
	"encoding/json"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// windowMinutes are the lengths of the windows Claude Code names (2.1.197);
// others (overage) have none that it says.
var windowMinutes = map[string]int64{
	"five_hour":                  5 * 60,
	"seven_day":                  7 * 24 * 60,
	"seven_day_opus":             7 * 24 * 60,
	"seven_day_sonnet":           7 * 24 * 60,
	"seven_day_overage_included": 7 * 24 * 60,
}

// onRateLimit turns a rate_limit_event into the window it reports. The CLI
// sends one when the limit's state changes: the window nearest its limit,
// its utilization only once it nears it ("allowed_warning").
func (s *session) onRateLimit(line []byte) {
	var l struct {
		Info struct {
			Status        string   `json:"status"`
			ResetsAt      *float64 `json:"resetsAt"`
			RateLimitType string   `json:"rateLimitType"`
			Utilization   *float64 `json:"utilization"`
		} `json:"rate_limit_info"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		s.log.Warn("ignored a malformed rate_limit_event", zap.Error(err))
		return
	}
	in := l.Info
	id := in.RateLimitType
	if id == "" {
		// The CLI names no window when the API named none: still the plan's
		// limit, which a client may show.
		id = "unified"
	}
	w := rpc.RateLimitWindow{ID: id, WindowMinutes: windowMinutes[id], Status: limitStatus(in.Status)}
	if in.Utilization != nil && *in.Utilization >= 0 {
		p := min(*in.Utilization*100, 100)
		p = float64(int64(p*10+0.5)) / 10
		w.UsedPercent = &p
	}
	if in.ResetsAt != nil && *in.ResetsAt > 0 {
		w.ResetsAt = rpc.FormatTime(time.Unix(int64(*in.ResetsAt), 0))
	}
	s.em.Emit(runtimes.RateLimitsUpdated{Windows: []rpc.RateLimitWindow{w}})
}

func limitStatus(s string) rpc.LimitStatus {
	switch s {
	case "allowed":
		return rpc.LimitAllowed
	case "allowed_warning":
		return rpc.LimitWarning
	case "rejected":
		return rpc.LimitRejected
	}
	return ""
}

// lastCall is what the last model call of the main conversation put in the
// context, from its assistant line's usage (the CLI's own meter counts the
// same: input, cache creation and cache reads).
type lastCall struct {
	model  string
	tokens int64
}

// noteCall remembers an assistant line's usage for the turn's end.
func (st *streamState) noteCall(line []byte) {
	var l struct {
		Message struct {
			Model string `json:"model"`
			Usage *struct {
				Input         int64 `json:"input_tokens"`
				CacheCreation int64 `json:"cache_creation_input_tokens"`
				CacheRead     int64 `json:"cache_read_input_tokens"`
			} `json:"usage"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil || l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
		return
	}
	u := l.Message.Usage
	st.call = &lastCall{model: l.Message.Model, tokens: u.Input + u.CacheCreation + u.CacheRead}
}

// contextAt is the context's use after the turn whose result is line: the
// last call's tokens, in the window of its model as the result's
// modelUsage gives it. False when no call was made.
func (st *streamState) contextAt(line []byte) (rpc.ContextUsage, bool) {
	call := st.call
	st.call = nil
	if call == nil {
		return rpc.ContextUsage{}, false
	}
	var r struct {
		ModelUsage map[string]struct {
			ContextWindow int64 `json:"contextWindow"`
		} `json:"modelUsage"`
	}
	_ = json.Unmarshal(line, &r)
	c := rpc.ContextUsage{UsedTokens: call.tokens}
	// The key may carry a suffix the message's model lacks
	// ("claude-opus-4-8[1m]" for "claude-opus-4-8").
	for name, u := range r.ModelUsage {
		if name == call.model || strings.HasPrefix(name, call.model+"[") {
			c.WindowTokens = u.ContextWindow
			break
		}
	}
	return c, true
}
