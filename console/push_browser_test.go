package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// With notifications allowed, the console registers its service worker;
// a push message (what the browser hands the worker once it decrypted
// cdevd's Web Push, delivered here through DevTools since headless
// Chromium has no push service) shows a notification, and a withdrawal
// closes it.
func TestConsoleServiceWorkerShowsPush(t *testing.T) {
	bctx := browser(t)
	d := scriptedDaemon(t)
	base, _, _ := strings.Cut(d.ConsoleURL(), "#") // http://127.0.0.1:port/
	origin := strings.TrimSuffix(base, "/")
	allowNotifications(t, bctx, origin)
	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	registration := workerRegistration(t, a, base)
	await(t, a, "the worker active", `navigator.serviceWorker.ready.then(r => !!r.active)`)

	payload := notify.PushPayload{Tag: "s1/req1", Action: notify.ActionNotify, Kind: notify.KindPermission,
		Title: "claude asks to run Bash", Body: "make deploy · myproject on testhost",
		URL: notify.SessionURL(base, "ws1", "s1", "claude"), WorkspaceID: "ws1", SessionID: "s1", Runtime: "claude"}
	push(t, a, origin, registration, payload)
	until(t, a, "the notification", `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => `+
		`ns.some(n => n.title === "claude asks to run Bash" && n.body.includes("make deploy") && n.tag === "s1/req1"))`)

	push(t, a, origin, registration, notify.PushPayload{Tag: "s1/req1", Action: notify.ActionWithdraw})
	until(t, a, "the notification withdrawn", `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.length === 0)`)
}

// While its tab is hidden, cdevd counts the console as absent and the
// page itself shows a plain notification for a permission request.
func TestConsoleHiddenTabNotifies(t *testing.T) {
	bctx := browser(t)
	d := scriptedDaemon(t)
	o := startOtherSide(t, d)
	base, _, _ := strings.Cut(d.ConsoleURL(), "#")
	allowNotifications(t, bctx, strings.TrimSuffix(base, "/"))
	a := tab(t, bctx)
	link := notify.SessionURL(base, o.wid, o.sid, scripted.ID) + "&token=" + d.Token()
	do(t, a, "open the session", chromedp.Navigate(link))
	until(t, a, "the session", `document.querySelector('#session').dataset.session === "`+o.sid+`"`)
	// Notifications the browser showed, recorded as it shows them.
	do(t, a, "record notifications", chromedp.Evaluate[chromedp.Void](`(() => {
		window.shown = [];
		const Real = Notification;
		window.Notification = class extends Real {
			constructor(title, opts) {
				super(title, opts);
				this.addEventListener("show", () => shown.push(title + " | " + (opts?.body ?? "")));
			}
		};
	})()`))
	do(t, a, "hide the page", chromedp.Evaluate[chromedp.Void](setVisibility("hidden")))

	ask := `{"steps":[{"permission":{"tool":"Bash","target":"make deploy","kind":"bash_command"}}]}`
	if _, err := o.client.SessionSend(o.ctx, rpc.SessionSendParams{SessionID: o.sid, AgentType: scripted.ID, Prompt: ask}); err != nil {
		t.Fatal(err)
	}
	until(t, a, "a notification", `shown.some(s => s.startsWith("scripted needs you") && s.includes("make deploy"))`)
}

// allowNotifications grants the console's origin what "Notify me" asks.
func allowNotifications(t *testing.T, bctx context.Context, origin string) {
	t.Helper()
	_, err := chromedp.CallBrowser(bctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: origin})
	if err != nil {
		t.Fatalf("grant notifications: %v", err)
	}
}

// workerRegistration waits for the console's service worker registration
// under scope and gives its DevTools id.
func workerRegistration(t *testing.T, ctx context.Context, scope string) serviceworker.RegistrationID {
	t.Helper()
	id, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (serviceworker.RegistrationID, error) {
		ctx, cancel := context.WithTimeout(ctx, claudetest.Timeout)
		defer cancel()
		updates := cdp.Events(ctx, tg, serviceworker.WorkerRegistrationUpdated) // subscribed before enable replays them
		if _, err := cdp.Call(ctx, tg, serviceworker.Enable, cdp.Empty{}); err != nil {
			return "", err
		}
		for u, err := range updates {
			if err != nil {
				return "", err
			}
			for _, r := range u.Registrations {
				if r.ScopeURL == scope && !r.IsDeleted {
					return r.RegistrationID, nil
				}
			}
		}
		return "", fmt.Errorf("no registration for %s", scope)
	})
	if err != nil {
		t.Fatalf("the service worker's registration: %v", err)
	}
	return id
}

// push hands the worker a push message, as the browser does with one
// it received and decrypted.
func push(t *testing.T, ctx context.Context, origin string, id serviceworker.RegistrationID, p notify.PushPayload) {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, serviceworker.DeliverPushMessage,
		serviceworker.DeliverPushMessageParams{Origin: origin, RegistrationID: id, Data: string(data)}); err != nil {
		t.Fatalf("deliver a push message: %v", err)
	}
}

// await waits for a JavaScript promise to resolve to true.
func await(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
	if err != nil || !ok {
		t.Fatalf("%s (%s): %v, %v", what, js, ok, err)
	}
}
