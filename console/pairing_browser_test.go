package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The link `cdevd serve` prints pairs the console as a device: the page
// holds a device's access token, never the owner's; the link works once;
// and a reload renews the token rather than asking for one.
func TestConsolePairsItself(t *testing.T) {
	bctx := browser(t)
	d := scriptedDaemon(t)
	link, err := d.ConsolePairingURL()
	if err != nil {
		t.Fatal(err)
	}
	a := tab(t, bctx)
	do(t, a, "open the pairing link", chromedp.Navigate(link))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	if h := eval[string](t, a, "location.hash"); h != "" {
		t.Errorf("the pairing token stayed in the address bar: %q", h)
	}
	first := eval[string](t, a, "sessionStorage.getItem('cdevd.token')")
	if !strings.HasPrefix(first, "cdev_s_") || first == d.Token() {
		t.Errorf("the console holds %.10q…, want a device's access token", first)
	}
	devs := d.Auth().Store.List()
	if len(devs) != 1 || devs[0].Name != "console" || devs[0].Scope != "control" {
		t.Fatalf("devices: %+v, want one called console", devs)
	}

	do(t, a, "reload", chromedp.Reload())
	until(t, a, "the workspace after a reload", `document.querySelector('.ws .ws-open')`)
	if again := eval[string](t, a, "sessionStorage.getItem('cdevd.token')"); again == first || !strings.HasPrefix(again, "cdev_s_") {
		t.Errorf("after a reload the token is %.10q…, want a renewed one", again)
	}

	// The same link in another tab (no session storage of its own) is refused.
	b := tab(t, bctx)
	do(t, b, "open the used link", chromedp.Navigate(link))
	until(t, b, "the login form", `!document.querySelector('#login').hidden`)
	if msg := eval[string](t, b, "document.querySelector('#login-msg').textContent"); !strings.Contains(msg, "already used") {
		t.Errorf("login message %q, want it to say the link was used", msg)
	}
	if n := len(d.Auth().Store.List()); n != 1 {
		t.Errorf("%d devices after the used link, want 1", n)
	}
}
