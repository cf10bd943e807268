package notify

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// With nobody present, a permission request is notified once however
// often it is shown, and withdrawn once answered.
func TestPermissionNotifiedOnceThenWithdrawn(t *testing.T) {
	r := newReceiver(t)
	n, _ := start(t, Config{Sinks: []Sink{r.webhook()}})
	n.Observe(permission(t, "s1", "req1", "rm -rf build"))
	n.Observe(permission(t, "s1", "req1", "rm -rf build")) // shown again (a replay, a second client)
	got := r.next(t)
	if got.note.Action != ActionNotify || got.note.Kind != KindPermission || got.note.ID != "s1/req1" ||
		got.note.RequestID != "req1" || got.note.SessionID != "s1" || got.note.Runtime != "claude" ||
		got.note.Workspace != "myproject" || got.note.Machine != "testhost" {
		t.Errorf("notification = %+v", got.note)
	}
	if !strings.Contains(got.note.Title, "Bash") || !strings.Contains(got.note.Body, "rm -rf build") ||
		!strings.Contains(got.note.Body, "myproject on testhost") {
		t.Errorf("text = %q / %q", got.note.Title, got.note.Body)
	}
	if got.note.URL != "http://127.0.0.1:16180/#session=s1&workspace=ws1&agent=claude" {
		t.Errorf("url = %q", got.note.URL)
	}
	if got.header.Get(ActionHeader) != ActionNotify || got.header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", got.header)
	}
	n.Observe(resolved(t, "s1", "req1"))
	w := r.next(t)
	if w.note.Action != ActionWithdraw || w.note.ID != "s1/req1" || w.header.Get(ActionHeader) != ActionWithdraw {
		t.Errorf("withdrawal = %+v", w.note)
	}
	r.none(t, 200*time.Millisecond)
	if got := count(n, "hook", KindPermission, resultSent); got != 2 {
		t.Errorf("sent = %v, want 2 (the notification and its withdrawal)", got)
	}
}

// Someone present: the turn's end is not sent (suppressed), a request
// answered within the wait is never sent, and one left unanswered is
// sent when the wait runs out.
func TestPresenceSuppressesAndTheWaitRunsOut(t *testing.T) {
	r := newReceiver(t)
	p := &present{}
	p.set("s1", true)
	const wait = 300 * time.Millisecond
	n, _ := start(t, Config{Sinks: []Sink{r.webhook()}, Presence: p, PermissionWait: wait})

	n.Observe(sessionEvent(t, rpc.EventTurnCompleted, "s1", rpc.TurnCompletedEvent{StopReason: "end_turn"}))
	n.Observe(permission(t, "s1", "answered", "ls"))
	n.Observe(resolved(t, "s1", "answered"))
	asked := time.Now()
	n.Observe(permission(t, "s1", "ignored", "make deploy"))
	got := r.next(t)
	if waited := time.Since(asked); waited < wait {
		t.Errorf("notified after %v, before the %v wait", waited, wait)
	}
	if got.note.RequestID != "ignored" || got.note.Action != ActionNotify {
		t.Errorf("notification = %+v, want the unanswered request", got.note)
	}
	r.none(t, 2*wait) // and nothing for the answered one, nor the turn
	if s := count(n, "hook", KindTurnCompleted, resultSuppressed); s != 1 {
		t.Errorf("turn_completed suppressed = %v, want 1", s)
	}
	if s := count(n, "hook", KindPermission, resultSuppressed); s != 1 {
		t.Errorf("permission suppressed = %v, want 1", s)
	}
}

// A turn's end, a failed turn, a crash and a stall each notify once; the
// session_end that follows a crash adds nothing, an exit while idle with a
// failure code is told.
func TestTurnEndErrorCrashStallNotifyOnce(t *testing.T) {
	r := newReceiver(t)
	n, _ := start(t, Config{Sinks: []Sink{r.webhook()}})
	one := 1
	n.Observe(sessionEvent(t, rpc.EventTurnCompleted, "s1", rpc.TurnCompletedEvent{StopReason: "end_turn"}))
	n.Observe(sessionEvent(t, rpc.EventError, "s2", rpc.ErrorEvent{Code: "rate_limited", Message: "429 from the API"}))
	n.Observe(sessionEvent(t, rpc.EventError, "s3", rpc.ErrorEvent{Code: "cli_exited", Message: "claude exited during the turn"}))
	n.Observe(sessionEvent(t, rpc.EventSessionEnd, "s3", rpc.SessionEndEvent{Reason: "exited", ExitCode: &one}))
	n.Observe(sessionEvent(t, rpc.EventError, "s4", rpc.ErrorEvent{Code: "stall_timeout", Message: "no output for 5m"}))
	killed := -1 // the stalled CLI, killed: told by the stall already
	n.Observe(sessionEvent(t, rpc.EventSessionEnd, "s4", rpc.SessionEndEvent{Reason: "exited", ExitCode: &killed}))
	n.Observe(sessionEvent(t, rpc.EventSessionEnd, "s5", rpc.SessionEndEvent{Reason: "exited", ExitCode: &one}))
	zero := 0
	n.Observe(sessionEvent(t, rpc.EventSessionEnd, "s6", rpc.SessionEndEvent{Reason: "exited", ExitCode: &zero}))
	want := []struct {
		session string
		kind    Kind
		title   string
	}{
		{"s1", KindTurnCompleted, "finished its turn"},
		{"s2", KindError, "the turn failed (rate_limited)"},
		{"s3", KindError, "crashed"},
		{"s4", KindStall, "stalled"},
		{"s5", KindError, "exited with code 1"},
	}
	for _, w := range want {
		got := r.next(t)
		if got.note.SessionID != w.session || got.note.Kind != w.kind || !strings.Contains(got.note.Title, w.title) {
			t.Errorf("got %s %s %q, want %s %s %q", got.note.SessionID, got.note.Kind, got.note.Title, w.session, w.kind, w.title)
		}
	}
	r.none(t, 200*time.Millisecond)
}

// A sink receives only the kinds it asked for.
func TestSinkGetsOnlyItsKinds(t *testing.T) {
	r := newReceiver(t)
	n, _ := start(t, Config{Sinks: []Sink{r.webhook(KindQuestion)}})
	n.Observe(permission(t, "s1", "p", "ls"))
	n.Observe(sessionEvent(t, rpc.EventQuestion, "s1", rpc.QuestionEvent{RequestID: "q",
		Questions: []rpc.Question{{Question: "Which color?"}}}))
	got := r.next(t)
	if got.note.Kind != KindQuestion || !strings.Contains(got.note.Body, "Which color?") {
		t.Errorf("got %+v, want the question only", got.note)
	}
	r.none(t, 200*time.Millisecond)
}

// Secrets in a command do not reach a notification, and long text is cut.
func TestTextHasNoSecretAndIsShort(t *testing.T) {
	r := newReceiver(t)
	n, _ := start(t, Config{Sinks: []Sink{r.webhook()}})
	const key = "sk-ant-api03-AbCdEf0123456789GhIjKlMnOp"
	cmd := "curl -H 'Authorization: Bearer " + key + "' https://api.example.com && API_KEY=hunter2hunter2 ./deploy --password=pa55word " +
		strings.Repeat("and more ", 100)
	n.Observe(permission(t, "s1", "r", cmd))
	got := r.next(t)
	for _, secret := range []string{key, "hunter2hunter2", "pa55word", "AbCdEf0123"} {
		if strings.Contains(string(got.body), secret) {
			t.Errorf("the notification holds %q: %s", secret, got.body)
		}
	}
	if len([]rune(got.note.Body)) > maxBody || len([]rune(got.note.Title)) > maxTitle {
		t.Errorf("body of %d runes, title of %d", len([]rune(got.note.Body)), len([]rune(got.note.Title)))
	}
	if !strings.Contains(got.note.Body, "curl") || !strings.Contains(got.note.Body, "myproject on testhost") {
		t.Errorf("body %q lost what it is about", got.note.Body)
	}
}

// A redirecting webhook is not followed: one attempt, failed, and the
// place it points to never sees the signed body.
func TestWebhookRedirectNotFollowed(t *testing.T) {
	target := newReceiver(t)
	moved := httptest.NewServer(http.RedirectHandler(target.srv.URL, http.StatusFound))
	t.Cleanup(moved.Close)
	home := t.TempDir()
	outcomes := make(chan error, 10)
	n, _ := start(t, Config{StatusFile: filepath.Join(home, StatusFileName),
		Sinks:     []Sink{NewWebhook(SinkConfig{Name: "hook", Kinds: Kinds, Backoff: time.Millisecond}, moved.URL, testSecret)},
		delivered: func(_ string, _ Notification, err error) { outcomes <- err }})
	n.Observe(permission(t, "s1", "r", "ls"))
	if err := <-outcomes; err == nil || !strings.Contains(err.Error(), "redirects are not followed") {
		t.Fatalf("delivery: %v", err)
	}
	if f := count(n, "hook", KindPermission, resultFailed); f != 1 {
		t.Errorf("failed = %v, want 1", f)
	}
	target.none(t, 100*time.Millisecond)
	st, err := ReadStatus(home)
	if err != nil || len(st) != 1 || !strings.Contains(st[0].LastError, "redirects are not followed") {
		t.Fatalf("status %+v, %v", st, err)
	}
	if info, err := os.Stat(filepath.Join(home, StatusFileName)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("status file: %v, %v; want mode 0600", info, err)
	}
}
