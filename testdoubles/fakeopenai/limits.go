package fakeopenai

import (
	"net/http"
	"strconv"
	"time"
)

// PlanLimit is one window of a ChatGPT plan as the Responses API reports it
// in its x-codex-<window>-… response headers, which Codex turns into its
// account/rateLimits/updated notification.
type PlanLimit struct {
	Window      string // primary or secondary
	UsedPercent float64
	Minutes     int64
	Reset       time.Time
}

// PlanHeaders are the response headers saying limits.
func PlanHeaders(limits ...PlanLimit) http.Header {
	h := http.Header{}
	for _, l := range limits {
		p := "x-codex-" + l.Window + "-"
		h.Set(p+"used-percent", strconv.FormatFloat(l.UsedPercent, 'f', -1, 64))
		h.Set(p+"window-minutes", strconv.FormatInt(l.Minutes, 10))
		h.Set(p+"reset-at", strconv.FormatInt(l.Reset.Unix(), 10))
	}
	return h
}
