package console_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	cdevd "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// A notification's link (notify.SessionURL) opens its session in the
// console, and the console counts as looking at it while its tab is
// visible only: another client sees it join, leave when the page is
// hidden, and join again when it is shown. A window opened by the link
// without a token asks for one first, then opens the session.
func TestConsolePresenceAndNotificationLink(t *testing.T) {
	bctx := browser(t)
	d := scriptedDaemon(t)
	o := startOtherSide(t, d)
	ctx, other, wid, sid := o.ctx, o.client, o.wid, o.sid
	// The other client views the session too, so that it hears the console come and go.
	var f rpc.FocusResult
	if err := other.Call(ctx, rpc.MethodFocus, rpc.FocusParams{WorkspaceID: wid, SessionID: sid}, &f); err != nil || f.ViewerCount != 1 {
		t.Fatalf("focus: %+v, %v", f, err)
	}

	base, _, _ := strings.Cut(d.ConsoleURL(), "#")
	link := notify.SessionURL(base, wid, sid, scripted.ID)
	a := tab(t, bctx)
	do(t, a, "open the notification's link", chromedp.Navigate(link+"&token="+d.Token()))
	until(t, a, "the session", `document.querySelector('#session').dataset.session === "`+sid+`"`)
	console := viewerEvent(t, ctx, other, "session_joined", 2).JoiningClientID
	if v := viewers(t, ctx, other, sid); !slices.Contains(v, console) || len(v) != 2 {
		t.Errorf("viewers %v, want the console's %s among two", v, console)
	}
	if h := eval[string](t, a, "location.hash"); h != "" {
		t.Errorf("the link stayed in the address bar: %q", h)
	}

	do(t, a, "hide the page", chromedp.Evaluate[chromedp.Void](setVisibility("hidden")))
	if left := viewerEvent(t, ctx, other, "session_left", 1); left.LeavingClientID != console {
		t.Errorf("left: %+v, want the console %s", left, console)
	}
	if v := viewers(t, ctx, other, sid); slices.Contains(v, console) {
		t.Errorf("viewers %v: a hidden console still counts", v)
	}
	do(t, a, "show the page", chromedp.Evaluate[chromedp.Void](setVisibility("visible")))
	if back := viewerEvent(t, ctx, other, "session_joined", 2); back.JoiningClientID != console {
		t.Errorf("joined again: %+v, want the console %s", back, console)
	}

	// A new window (what the service worker opens) has no token yet.
	b := tab(t, bctx)
	do(t, b, "open the link in a new window", chromedp.Navigate(link))
	until(t, b, "the login form", `!document.querySelector('#login').hidden`)
	do(t, b, "log in", chromedp.SendKeys(chromedp.CSS("#token-input"), d.Token()),
		chromedp.Click(chromedp.CSS("#token-submit")))
	until(t, b, "the session after the login", `document.querySelector('#session').dataset.session === "`+sid+`"`)
	viewerEvent(t, ctx, other, "session_joined", 3)
}

// setVisibility makes the page report the visibility given and tells it,
// as the browser does when its tab goes to the background (headless
// Chromium keeps every tab visible).
func setVisibility(state string) string {
	return `(() => {
		Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "` + state + `"});
		Object.defineProperty(document, "hidden", {configurable: true, get: () => "` + state + `" === "hidden"});
		document.dispatchEvent(new Event("visibilitychange"));
	})()`
}

type viewerChange struct {
	rpc.SessionJoinedEvent
	LeavingClientID string `json:"leaving_client_id"`
}

// viewerEvent waits for the next session_joined or session_left of the
// kind given and checks its viewer count.
func viewerEvent(t *testing.T, ctx context.Context, c *cdevd.Client, kind string, count int) viewerChange {
	t.Helper()
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed waiting for %s: %v", kind, c.Err())
			}
			if ev.Type() != kind {
				continue
			}
			var v viewerChange
			if err := ev.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if v.ViewerCount != count {
				t.Errorf("%s: viewer_count %d, want %d", kind, v.ViewerCount, count)
			}
			return v
		case <-ctx.Done():
			t.Fatalf("no %s: %v", kind, ctx.Err())
		}
	}
}

// viewers is workspace/list's viewers of the session.
func viewers(t *testing.T, ctx context.Context, c *cdevd.Client, sid string) []string {
	t.Helper()
	wss, err := c.WorkspaceList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wss {
		for _, s := range w.Sessions {
			if s.ID == sid {
				return s.Viewers
			}
		}
	}
	t.Fatalf("session %s not in workspace/list", sid)
	return nil
}
