package notify

// A plan's rate-limit window crossing LimitThreshold, or reached: told
// once per window and period, whoever's session reported it.

import (
	"fmt"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// LimitThreshold is the share of a window (percent) past which it is told.
const LimitThreshold = 90.0

// limitsTold are the windows told, by runtime and window id, with the
// reset that ends the period told (a new period may be told again) and
// whether it was its limit being reached (told apart from nearing it).
type limitsTold map[string]toldWindow

type toldWindow struct {
	resetsAt string
	reached  bool
}

// onLimits tells the windows of a rate_limits event that crossed the
// threshold or reached their limit, once per period. Someone looking at the
// session sees it in the console: it is not sent, and not told again.
func (n *Notifier) onLimits(e event, base Notification) {
	for _, w := range e.Windows {
		reached := w.Status == rpc.LimitRejected
		near := reached || w.UsedPercent != nil && *w.UsedPercent >= LimitThreshold
		if !near {
			continue
		}
		key := e.AgentType + "/" + w.ID
		if told, ok := n.limits[key]; ok && told.resetsAt == w.ResetsAt && (told.reached || !reached) {
			continue
		}
		n.limits[key] = toldWindow{resetsAt: w.ResetsAt, reached: reached}
		note := base
		note.Kind = KindLimit
		note.ID = key + "/" + w.ResetsAt
		describeLimit(w, reached, &note)
		if n.cfg.Presence.Present(e.SessionID) {
			n.suppressed(note.Kind)
			continue
		}
		n.dispatch(note)
	}
}

// describeLimit fills the text: which limit, how far, and when it resets.
func describeLimit(w rpc.RateLimitWindow, reached bool, n *Notification) {
	name := windowName(w)
	switch {
	case reached:
		n.Title = tidy(fmt.Sprintf("%s: the %s is reached", n.Runtime, name), maxTitle)
	default:
		n.Title = tidy(fmt.Sprintf("%s: %.0f %% of the %s used", n.Runtime, *w.UsedPercent, name), maxTitle)
	}
	body := ""
	if t, err := time.Parse(time.RFC3339, w.ResetsAt); err == nil {
		body = "Resets " + t.UTC().Format("Mon 15:04 UTC")
	}
	where := n.Workspace
	if n.Machine != "" {
		where += " on " + n.Machine
	}
	if body == "" {
		n.Body = tidy(where, maxBody)
	} else {
		n.Body = tidy(body+" · "+where, maxBody)
	}
}

// windowName says a window as a user knows it.
func windowName(w rpc.RateLimitWindow) string {
	switch {
	case w.ID == "five_hour" || w.WindowMinutes == 300:
		return "5-hour limit"
	case w.WindowMinutes == 7*24*60:
		return "weekly limit"
	case w.WindowMinutes > 0:
		return fmt.Sprintf("%s limit (%d min)", w.ID, w.WindowMinutes)
	}
	return w.ID + " limit"
}
