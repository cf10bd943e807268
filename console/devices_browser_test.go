package console_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

func devicesDaemon(t *testing.T, approval bool) *daemon.Daemon {
	return startDaemon(t, daemon.Config{Workspaces: []string{t.TempDir()}, PairingApproval: approval, Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir(), KillGrace: 2 * time.Second}),
	}})
}

// apiCall posts (or, with a nil body, gets) path on d as a client with
// bearer would, and returns the status and the decoded answer.
func apiCall(t *testing.T, d *daemon.Daemon, path, bearer string, body any) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+d.Addr()+path, nil)
	if body != nil {
		raw, _ := json.Marshal(body)
		req, err = http.NewRequest(http.MethodPost, "http://"+d.Addr()+path, bytes.NewReader(raw))
	}
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// exchange trades a pairing token as the iOS app does and returns the
// status and answer.
func exchange(t *testing.T, d *daemon.Daemon, pairingToken string) (int, map[string]any) {
	t.Helper()
	return apiCall(t, d, "/api/auth/exchange", "", map[string]string{"pairing_token": pairingToken})
}

func openDevicesScreen(t *testing.T, ctx context.Context, link string) {
	t.Helper()
	do(t, ctx, "open the console", chromedp.Navigate(link))
	until(t, ctx, "the workspace", `document.querySelector('.ws .ws-open')`)
	do(t, ctx, "open Devices", chromedp.Click(chromedp.CSS("#devices-open")))
	until(t, ctx, "the devices screen", `!document.querySelector('#devices').hidden && document.querySelector('#device-list li')`)
}

// The Devices screen lists a device paired through the API, renames and
// revokes it (its token is refused from then on), and pairs a phone with a
// code and a QR image holding the app's payload; a watch console offers
// no acting control.
func TestConsoleDevices(t *testing.T) {
	bctx := browser(t)
	d := devicesDaemon(t, false)
	ticket, err := d.Auth().Pair("phone", auth.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	status, pair := exchange(t, d, ticket.PairingToken)
	phoneToken, _ := pair["access_token"].(string)
	if status != http.StatusOK || phoneToken == "" {
		t.Fatalf("exchange: %d %v", status, pair)
	}
	var phoneID string
	for _, dev := range d.Auth().Store.List() {
		if dev.Name == "phone" {
			phoneID = dev.ID
		}
	}

	link, err := d.ConsolePairingURL()
	if err != nil {
		t.Fatal(err)
	}
	a := tab(t, bctx)
	openDevicesScreen(t, a, link)
	row := `document.querySelector('.device[data-id="` + phoneID + `"]')`
	until(t, a, "the phone listed", row+`?.querySelector('.device-name').textContent === 'phone'`)
	if meta := eval[string](t, a, row+`.textContent`); !strings.Contains(meta, "control") || !strings.Contains(meta, "127.0.0.1") {
		t.Errorf("the phone's row %q, want its scope and the address it was last seen from", meta)
	}

	do(t, a, "rename", chromedp.Evaluate[chromedp.Void](`window.prompt = () => 'tablet'`),
		chromedp.Click(chromedp.CSS(`.device[data-id="`+phoneID+`"] .device-rename`)))
	until(t, a, "the new name", row+`?.querySelector('.device-name').textContent === 'tablet'`)
	if got := d.Auth().Store.List(); !hasDevice(got, "tablet", auth.ScopeControl) {
		t.Errorf("devices after the rename: %+v", got)
	}

	if s, _ := apiCall(t, d, "/api/devices", phoneToken, nil); s != http.StatusOK {
		t.Fatalf("the phone's token before the revoke: %d", s)
	}
	do(t, a, "revoke", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.CSS(`.device[data-id="`+phoneID+`"] .device-revoke`)))
	until(t, a, "the phone gone", `!`+row)
	if s, _ := apiCall(t, d, "/api/devices", phoneToken, nil); s != http.StatusUnauthorized {
		t.Errorf("the revoked phone's token answered %d, want 401", s)
	}

	// Pair a phone: the page's fetch is watched for the server's answer,
	// to check the image against the payload it says it drew.
	do(t, a, "pair a phone",
		chromedp.Evaluate[chromedp.Void](`{const f = window.fetch; window.fetch = async (u, o) => {
			const r = await f(u, o); if (String(u).endsWith('/api/pair/new')) window.pairAnswer = await r.clone().json(); return r; }}`),
		chromedp.SendKeys(chromedp.CSS("#pair-name"), "ipad"),
		chromedp.SetValue(chromedp.CSS("#pair-scope"), "watch"),
		chromedp.Click(chromedp.CSS("#pair-start")))
	until(t, a, "the code and QR code", `!document.querySelector('#pair-shown').hidden && document.querySelector('#pair-qr').complete && document.querySelector('#pair-qr').naturalWidth > 0`)
	code := eval[string](t, a, "document.querySelector('#pair-code').textContent")
	if !regexp.MustCompile(`^[0-9]{6}$`).MatchString(code) {
		t.Errorf("code shown %q, want 6 digits", code)
	}
	if exp := eval[string](t, a, "document.querySelector('#pair-expiry').textContent"); !strings.Contains(exp, "valid for 4:") && !strings.Contains(exp, "valid for 5:") {
		t.Errorf("expiry shown %q, want a countdown from 5 minutes", exp)
	}
	answer := eval[map[string]any](t, a, "window.pairAnswer")
	payload, _ := answer["qr_payload"].(string)
	var qr auth.QRPayload
	if err := json.Unmarshal([]byte(payload), &qr); err != nil {
		t.Fatalf("qr_payload %q: %v", payload, err)
	}
	if qr.WS != "ws://"+d.Addr()+"/ws" || qr.HTTP != "http://"+d.Addr() || !strings.HasPrefix(qr.Token, auth.PairingPrefix) {
		t.Errorf("QR payload %+v, want this cdevd's ws and http and a pairing token", qr)
	}
	src := eval[string](t, a, "document.querySelector('#pair-qr').src")
	img, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(src, "data:image/png;base64,") {
		t.Fatalf("QR image src %.40q…: %v", src, err)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Fatalf("QR image is not a PNG: %v", err)
	}
	// The encoder is deterministic: the same bytes are the same code.
	if want, _ := qrcode.Encode(payload, qrcode.Medium, auth.QRSize); !bytes.Equal(img, want) {
		t.Errorf("the QR image shown is not the QR code of the payload")
	}
	// The phone scanning it pairs as "ipad", watch.
	if s, p := exchange(t, d, qr.Token); s != http.StatusOK {
		t.Fatalf("exchanging the QR code's token: %d %v", s, p)
	}
	shot(t, a, "devices-pairing")
	until(t, a, "ipad listed", `[...document.querySelectorAll('#device-list .device')].some(li => li.textContent.includes('ipad') && li.textContent.includes('watch'))`)

	// A watch console: no Devices button, no start, send or add.
	watchTicket, err := d.Auth().Pair("wall screen", auth.ScopeWatch)
	if err != nil {
		t.Fatal(err)
	}
	w := tab(t, bctx)
	do(t, w, "open a watch console", chromedp.Navigate("http://"+d.Addr()+"/#pair="+watchTicket.PairingToken))
	until(t, w, "the workspace", `document.querySelector('.ws .ws-open')`)
	for _, sel := range []string{"#devices-open", "#start-form", "#ws-add", "#composer", ".ws-remove"} {
		// offsetParent is null for an element not displayed, or inside one.
		if shown := eval[bool](t, w, `document.querySelector('`+sel+`').offsetParent !== null`); shown {
			t.Errorf("a watch console shows %s", sel)
		}
	}
}

func hasDevice(ds []auth.Device, name string, scope auth.Scope) bool {
	for _, d := range ds {
		if d.Name == name && d.Scope == scope {
			return true
		}
	}
	return false
}

// With serve --pairing-approval, the console's own link still pairs it,
// and a phone's pairing waits on the Devices screen until it is approved (the phone then gets its tokens) or rejected
// (the phone is told so).
func TestConsoleApprovesPairings(t *testing.T) {
	bctx := browser(t)
	d := devicesDaemon(t, true)
	var tokens []string
	for _, name := range []string{"approved phone", "rejected phone"} {
		tk, err := d.Auth().Pair(name, auth.ScopeControl)
		if err != nil {
			t.Fatal(err)
		}
		if s, p := exchange(t, d, tk.PairingToken); s != http.StatusAccepted {
			t.Fatalf("exchange before approval: %d %v, want 202", s, p)
		}
		tokens = append(tokens, tk.PairingToken)
	}
	reqs := d.Auth().Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %+v", reqs)
	}
	ids := map[string]string{}
	for _, r := range reqs {
		ids[r.Name] = r.ID
	}
	a := tab(t, bctx)
	// The link serve prints pairs the console without waiting: its owner
	// is the one who would approve it.
	link, err := d.ConsolePairingURL()
	if err != nil {
		t.Fatal(err)
	}
	do(t, a, "open the console", chromedp.Navigate(link))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	if tok := eval[string](t, a, "sessionStorage.getItem('cdevd.token')"); !strings.HasPrefix(tok, auth.AccessPrefix) {
		t.Fatalf("the console holds %.10q…, want a device's access token", tok)
	}
	do(t, a, "open Devices", chromedp.Click(chromedp.CSS("#devices-open")))
	until(t, a, "two waiting pairings", `document.querySelectorAll('#pair-requests .pair-request').length === 2 && !document.querySelector('#pair-requests-box').hidden`)
	shot(t, a, "devices-approval")
	do(t, a, "approve", chromedp.Click(chromedp.CSS(`.pair-request[data-id="`+ids["approved phone"]+`"] .pair-approve`)))
	until(t, a, "one pairing waiting", `document.querySelectorAll('#pair-requests .pair-request').length === 1`)
	do(t, a, "reject", chromedp.Click(chromedp.CSS(`.pair-request[data-id="`+ids["rejected phone"]+`"] .pair-reject`)))
	until(t, a, "no pairing waiting", `document.querySelector('#pair-requests-box').hidden || document.querySelector('#banner').textContent`)
	if b := eval[string](t, a, "document.querySelector('#banner').textContent"); b != "" {
		t.Fatalf("banner: %q", b)
	}
	if s, p := exchange(t, d, tokens[0]); s != http.StatusOK || p["access_token"] == nil {
		t.Errorf("the approved phone's exchange: %d %v, want its tokens", s, p)
	}
	if s, p := exchange(t, d, tokens[1]); s != http.StatusForbidden {
		t.Errorf("the rejected phone's exchange: %d %v, want 403", s, p)
	}
	// A name cdevd refuses is said in a banner; the screen stays usable.
	do(t, a, "pair with too long a name",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#pair-name').value = 'x'.repeat(65)`),
		chromedp.Click(chromedp.CSS("#pair-start")))
	until(t, a, "the refusal", has(".banner-item", "at most 64 bytes"))
	if n := len(d.Auth().Requests()); n != 0 {
		t.Errorf("%d pairings after a refused name, want none", n)
	}
	until(t, a, "the approved phone listed", `[...document.querySelectorAll('#device-list .device-name')].some(n => n.textContent === 'approved phone')`)
}
