package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/sessions"
)

func limitsEvent(t *testing.T, session string, ws ...rpc.RateLimitWindow) *sessions.Event {
	return sessionEvent(t, rpc.EventRateLimits, session, rpc.RateLimitsEvent{Windows: ws})
}

func window(id string, minutes int64, percent float64, status rpc.LimitStatus, resets string) rpc.RateLimitWindow {
	return rpc.RateLimitWindow{ID: id, UsedPercent: &percent, WindowMinutes: minutes, Status: status, ResetsAt: resets}
}

// A window is told when it crosses the threshold, once per period whichever
// session reports it, again when its limit is reached, and again in its
// next period; someone looking at the session sees the meter instead.
func TestLimitNotifiedOncePerWindow(t *testing.T) {
	r := newReceiver(t)
	p := &present{}
	p.set("watched", true)
	n, _ := start(t, Config{Sinks: []Sink{r.webhook()}, Presence: p})
	const reset1, reset2 = "2026-11-27T12:00:00.000Z", "2026-11-27T17:00:00.000Z"
	const week = "2026-12-01T09:00:00.000Z"

	n.Observe(limitsEvent(t, "s1", window("five_hour", 300, 80, rpc.LimitAllowed, reset1)))
	n.Observe(limitsEvent(t, "s1", window("five_hour", 300, 91, rpc.LimitWarning, reset1)))
	got := r.next(t)
	if got.note.Kind != KindLimit || got.note.Title != "claude: 91 % of the 5-hour limit used" ||
		!strings.HasPrefix(got.note.Body, "Resets Fri 12:00 UTC · myproject on testhost") || got.note.SessionID != "s1" {
		t.Errorf("notification = %+v", got.note)
	}
	n.Observe(limitsEvent(t, "s1", window("five_hour", 300, 95, rpc.LimitWarning, reset1)))
	n.Observe(limitsEvent(t, "s2", window("five_hour", 300, 97, rpc.LimitWarning, reset1)))
	n.Observe(limitsEvent(t, "s2", window("five_hour", 300, 100, rpc.LimitRejected, reset1)))
	if got := r.next(t); got.note.Title != "claude: the 5-hour limit is reached" {
		t.Errorf("reached = %+v", got.note)
	}
	n.Observe(limitsEvent(t, "s1", window("five_hour", 300, 100, rpc.LimitRejected, reset1)))
	n.Observe(limitsEvent(t, "watched", window("secondary", 7*24*60, 93, rpc.LimitAllowed, week)))
	n.Observe(limitsEvent(t, "s1", window("secondary", 7*24*60, 94, rpc.LimitAllowed, week)))
	n.Observe(limitsEvent(t, "s1", window("five_hour", 300, 90, rpc.LimitWarning, reset2)))
	if got := r.next(t); got.note.Title != "claude: 90 % of the 5-hour limit used" || !strings.Contains(got.note.Body, "17:00") {
		t.Errorf("next period = %+v", got.note)
	}
	r.none(t, 200*time.Millisecond)
	if s := count(n, "hook", KindLimit, resultSuppressed); s != 1 {
		t.Errorf("suppressed = %v, want 1 (the weekly limit, while looked at)", s)
	}
	if s := count(n, "hook", KindLimit, resultSent); s != 3 {
		t.Errorf("sent = %v, want 3", s)
	}
}
