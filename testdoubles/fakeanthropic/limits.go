package fakeanthropic

import (
	"net/http"
	"strconv"
	"time"
)

// PlanLimit is one window of a claude.ai plan as the API reports it in its
// anthropic-ratelimit-unified-* response headers, which Claude Code reads
// (for a subscription login only) into its rate_limit_event.
type PlanLimit struct {
	Status string // allowed, allowed_warning or rejected
	Claim  string // the window: five_hour, seven_day…
	Abbrev string // the window in per-window header names: 5h, 7d
	// Utilization is the share used, 0 to 1.
	Utilization float64
	Reset       time.Time
	// Surpassed is the warning threshold crossed (0.9), 0 for none: Claude
	// Code reports the utilization only with one.
	Surpassed float64
}

// Headers are the response headers saying l.
func (l PlanLimit) Headers() http.Header {
	h := http.Header{}
	reset := strconv.FormatInt(l.Reset.Unix(), 10)
	h.Set("anthropic-ratelimit-unified-status", l.Status)
	h.Set("anthropic-ratelimit-unified-reset", reset)
	h.Set("anthropic-ratelimit-unified-representative-claim", l.Claim)
	h.Set("anthropic-ratelimit-unified-"+l.Abbrev+"-utilization", strconv.FormatFloat(l.Utilization, 'f', -1, 64))
	h.Set("anthropic-ratelimit-unified-"+l.Abbrev+"-reset", reset)
	if l.Surpassed > 0 {
		h.Set("anthropic-ratelimit-unified-"+l.Abbrev+"-surpassed-threshold", strconv.FormatFloat(l.Surpassed, 'f', -1, 64))
	}
	return h
}
