package contracttests

import (
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// A turn's end, a failed turn, a crash and a stall (the scripted CLI, which
// can do each on demand) each reach the webhook exactly once: the
// session_end that follows a crash or a killed stall adds nothing.
func TestNotifyTurnEndErrorCrashStallOnce(t *testing.T) {
	hook, posts := webhookReceiver(t)
	sink := notify.NewWebhook(notify.SinkConfig{Name: "hook", Kinds: notify.Kinds}, hook.URL, hookSecret)
	e := startEnv(t, func(dc *daemon.Config, sc *scripted.Config) {
		sc.KillGrace, sc.StallTimeout = 200*time.Millisecond, 500*time.Millisecond
		// The test's client watches each session to know when it is over;
		// nobody{} makes the notifier send as if no one did.
		dc.Notify = daemon.Notify{Sinks: []notify.Sink{sink}, Presence: nobody{}}
	})
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	r := &notifyRig{posts: posts}
	for _, tc := range []struct {
		name  string
		steps []map[string]any
		kind  notify.Kind
		title string
	}{
		{"turn end", []map[string]any{{"message": "done"}}, notify.KindTurnCompleted, "scripted finished its turn"},
		{"failure", []map[string]any{{"fail": "the model said no"}}, notify.KindError, "scripted: the turn failed (runtime_error)"},
		{"crash", []map[string]any{{"delta": "partial"}, {"crash": 3}}, notify.KindError, "scripted crashed during its turn"},
		{"stall", []map[string]any{{"ignore_term": true}, {"hang": true}}, notify.KindStall, "scripted stalled"},
	} {
		id := startSession(t, ctx, c, w)
		send(t, ctx, c, id, script(tc.steps...))
		got := r.next(t, ctx)
		if got.note.Kind != tc.kind || got.note.SessionID != id || got.note.Title != tc.title {
			t.Errorf("%s: %+v, want %s %q", tc.name, got.note, tc.kind, tc.title)
		}
		if _, err := c.Await(ctx, func(n Notification) bool { return n.Header().SessionID == id && isTerminal(n) }); err != nil {
			t.Fatal(err)
		}
	}
	r.quiet(t, time.Second) // no second notification for any of them
}
