package contracttests

// Notifications with the real Claude CLI (against the fake model API): a
// permission request with nobody watching reaches a local webhook once,
// signed, and is withdrawn once answered from a client; with a client
// watching, nothing goes out until the configured wait has run out.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

const hookSecret = "contract-notify-secret-0123456789"

// hookPost is one POST the webhook received, with when it arrived.
type hookPost struct {
	note   notify.Notification
	signed bool
	at     time.Time
}

// webhookReceiver is a local endpoint standing for the user's webhook.
func webhookReceiver(t testing.TB) (*httptest.Server, chan hookPost) {
	posts := make(chan hookPost, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		p := hookPost{signed: r.Header.Get(notify.SignatureHeader) == notify.Sign(hookSecret, body), at: at}
		if err := json.Unmarshal(body, &p.note); err != nil {
			t.Errorf("webhook body %s: %v", body, err)
		}
		posts <- p
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv, posts
}

// notifyRig is the Claude rig with a webhook sink.
type notifyRig struct {
	*claudeRig
	posts chan hookPost
}

func newNotifyRig(t testing.TB, wait time.Duration, presence notify.Presence) *notifyRig {
	t.Helper()
	if _, _, ok := external(); ok {
		t.Skipf("needs cdevd in process with a fake model API; %s targets an external server", envURL)
	}
	hook, posts := webhookReceiver(t)
	fake := fakeanthropic.New(t)
	bin := claudetest.Bin(t)
	env := claudetest.Env(t, fake.URL())
	sink := notify.NewWebhook(notify.SinkConfig{Name: "hook", Kinds: notify.Kinds}, hook.URL, hookSecret)
	d := StartDaemon(t, daemon.Config{
		Adapters: []runtimes.Adapter{claude.New(claude.Config{Bin: bin, Env: env, KillGrace: 2 * time.Second})},
		Notify:   daemon.Notify{Sinks: []notify.Sink{sink}, PermissionWait: wait, Presence: presence},
	})
	return &notifyRig{claudeRig: &claudeRig{fake: fake, bin: bin, env: env, url: d.URL(), token: d.Token()}, posts: posts}
}

// next is the webhook's next POST, which must be signed.
func (r *notifyRig) next(t testing.TB, ctx context.Context) hookPost {
	t.Helper()
	select {
	case p := <-r.posts:
		if !p.signed {
			t.Errorf("POST %+v not signed with the sink's secret", p.note)
		}
		return p
	case <-ctx.Done():
		t.Fatal("the webhook received nothing")
		return hookPost{}
	}
}

// quiet checks that the webhook receives nothing for d: an absence can
// only be shown by waiting, and d is the test's own bound.
func (r *notifyRig) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case p := <-r.posts:
		t.Fatalf("unexpected POST: %+v", p.note)
	case <-time.After(d):
	}
}

func notifyWorkspace(t testing.TB, ctx context.Context, c *Client) rpc.Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	return w
}

func TestNotifyPermissionWithNobodyWatching(t *testing.T) {
	r := newNotifyRig(t, time.Minute, nil)
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, r.url, r.token)
	w := notifyWorkspace(t, ctx, c)
	id, _ := claudeStart(t, ctx, c, w)

	// The model's answer waits until the client that sent the turn has
	// left the session, like a phone put away: nobody watches when the
	// CLI asks.
	const command = "echo notified > notified.txt"
	left := make(chan struct{})
	call := callTool("Bash", map[string]string{"command": command, "description": "Create notified.txt"})
	r.respond(t, func(req fakeanthropic.Request) fakeanthropic.Reply {
		if _, answer := req.ToolResult(); req.HasTool("Bash") && !answer {
			<-left
		}
		return call(req)
	})
	claudeSend(t, ctx, c, id, "create notified.txt")
	c.MustCall(ctx, rpc.MethodUnwatch, rpc.UnwatchParams{SessionID: id, AgentType: claude.ID}, nil)
	close(left)

	asked := r.next(t, ctx)
	n := asked.note
	if n.Kind != notify.KindPermission || n.Action != notify.ActionNotify || n.SessionID != id || n.WorkspaceID != w.ID ||
		n.Runtime != claude.ID || n.RequestID == "" || n.Workspace != w.Name || n.Machine == "" {
		t.Fatalf("notification = %+v", n)
	}
	if n.Body == "" || n.Title != "claude asks to use Bash" || !strings.Contains(n.Body, command) {
		t.Errorf("text %q / %q does not say what is asked", n.Title, n.Body)
	}
	if n.URL == "" || !strings.Contains(n.URL, "session="+id) {
		t.Errorf("url %q does not open the session", n.URL)
	}
	// Answered from a client, with the request id the notification gave.
	var ok rpc.StatusResult
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", RequestID: n.RequestID, AgentType: claude.ID}, &ok)
	withdrawn := r.next(t, ctx)
	if withdrawn.note.Action != notify.ActionWithdraw || withdrawn.note.ID != n.ID {
		t.Fatalf("after the answer: %+v, want the withdrawal of %s", withdrawn.note, n.ID)
	}
	// Then the turn ends, and that is told once too.
	done := r.next(t, ctx)
	if done.note.Kind != notify.KindTurnCompleted || done.note.SessionID != id {
		t.Fatalf("after the withdrawal: %+v, want the turn's end", done.note)
	}
	r.quiet(t, 500*time.Millisecond)
}

func TestNotifyPermissionWithAClientWatching(t *testing.T) {
	const wait = 2 * time.Second
	r := newNotifyRig(t, wait, nil)
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, r.url, r.token)
	w := notifyWorkspace(t, ctx, c)
	id, _ := claudeStart(t, ctx, c, w) // c watches it

	r.respond(t, callTool("Bash", map[string]string{"command": "echo one > one.txt", "description": "one"}))
	claudeSend(t, ctx, c, id, "one")
	var p rpc.PermissionEvent
	if err := await(t, ctx, c, rpc.EventPermission, id).Decode(&p); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	// Answered at once by the watching client: nothing is ever sent, nor
	// for the turn's end that follows.
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", RequestID: p.RequestID, AgentType: claude.ID}, nil)
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	r.quiet(t, wait-time.Since(asked)+500*time.Millisecond)

	// Left unanswered: one POST, once the wait has run out.
	r.respond(t, callTool("Bash", map[string]string{"command": "echo two > two.txt", "description": "two"}))
	claudeSend(t, ctx, c, id, "two")
	if err := await(t, ctx, c, rpc.EventPermission, id).Decode(&p); err != nil {
		t.Fatal(err)
	}
	asked = time.Now()
	got := r.next(t, ctx)
	if waited := got.at.Sub(asked); waited < wait-100*time.Millisecond {
		t.Errorf("notified %v after the request, before the %v wait", waited, wait)
	}
	if got.note.RequestID != p.RequestID || got.note.Kind != notify.KindPermission {
		t.Errorf("notification %+v, want request %s", got.note, p.RequestID)
	}
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "no", RequestID: p.RequestID, AgentType: claude.ID}, nil)
	if wd := r.next(t, ctx); wd.note.Action != notify.ActionWithdraw || wd.note.RequestID != p.RequestID {
		t.Errorf("after the answer: %+v, want the withdrawal", wd.note)
	}
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	r.quiet(t, 500*time.Millisecond) // the watched turn's end is not sent
}
