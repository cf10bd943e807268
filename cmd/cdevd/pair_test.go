package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
)

// startPairingDaemon runs cdevd in process on home, for the commands that
// talk to a running one.
func startPairingDaemon(t *testing.T, home string, approval bool) *daemon.Daemon {
	t.Helper()
	d, err := daemon.Start(daemon.Config{Home: home, Addr: "127.0.0.1:0", PairingApproval: approval})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return d
}

func exchange(t *testing.T, base, pairingToken string) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"pairing_token": pairingToken})
	req, _ := http.NewRequest("POST", base+"/api/auth/exchange", bytes.NewReader(b))
	req.Close = true
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestPairThenDevicesListAndRevoke(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CDEVD_HOME": home, "CDEVD_TOKEN": ""}
	d := startPairingDaemon(t, home, false)

	out, errOut, code := runCmd(t, env, "pair", "--addr", d.Addr(), "--name", "kitchen tablet", "--scope", "watch", "--json")
	if code != 0 {
		t.Fatalf("pair --json: exit %d: %s", code, errOut)
	}
	var p struct {
		Code, Scope, Name string
		QR                string `json:"qr_payload"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("pair --json printed %q: %v", out, err)
	}
	var qr struct{ WS, HTTP, Token, Session, Repo *string }
	if err := json.Unmarshal([]byte(p.QR), &qr); err != nil || qr.WS == nil || qr.Token == nil || qr.HTTP == nil ||
		qr.Session == nil || qr.Repo == nil {
		t.Fatalf("QR payload %q: want ws, http, session, repo and token (%v)", p.QR, err)
	}
	if *qr.WS != d.URL() || !strings.HasPrefix(*qr.Token, "cdev_p_") || len(p.Code) != 6 || p.Scope != "watch" {
		t.Errorf("pairing %+v, QR %s", p, p.QR)
	}
	if st, body := exchange(t, *qr.HTTP, *qr.Token); st != 200 {
		t.Fatalf("the app's exchange of the QR's token: %d %v", st, body)
	}

	out, errOut, code = runCmd(t, env, "devices", "--addr", d.Addr(), "list")
	if code != 0 || !strings.Contains(out, "kitchen tablet") || !strings.Contains(out, "watch") {
		t.Fatalf("devices list: exit %d, %q %s", code, out, errOut)
	}
	id := d.Auth().Store.List()[0].ID
	if _, errOut, code = runCmd(t, env, "devices", "--addr", d.Addr(), "revoke", id); code != 0 {
		t.Fatalf("devices revoke: exit %d: %s", code, errOut)
	}
	if n := len(d.Auth().Store.List()); n != 0 {
		t.Errorf("%d devices after revoke", n)
	}
	if _, errOut, code = runCmd(t, env, "devices", "--addr", d.Addr(), "revoke", id); code != 1 || !strings.Contains(errOut, "no such device") {
		t.Errorf("revoking it again: exit %d, %q; want 1 and \"no such device\"", code, errOut)
	}
}

func TestPairPrintsAQRCodeTheCodeAndTheAddress(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CDEVD_HOME": home, "CDEVD_TOKEN": ""}
	d := startPairingDaemon(t, home, true)
	out, errOut, code := runCmd(t, env, "pair", "--addr", d.Addr())
	if code != 0 {
		t.Fatalf("pair: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "█") && !strings.Contains(out, "▀") {
		t.Errorf("no QR code in %q", out)
	}
	reqs := d.Auth().Requests()
	if len(reqs) != 1 {
		t.Fatalf("pairings in progress: %+v", reqs)
	}
	for _, want := range []string{"http://" + d.Addr(), d.URL(), "code:", "until", "cdevd devices approve " + reqs[0].ID} {
		if !strings.Contains(out, want) {
			t.Errorf("pair printed no %q:\n%s", want, out)
		}
	}
	if _, errOut, code = runCmd(t, env, "devices", "--addr", d.Addr(), "approve", reqs[0].ID); code != 0 {
		t.Errorf("approve: exit %d: %s", code, errOut)
	}
}

func TestPairRefusals(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CDEVD_HOME": home, "CDEVD_TOKEN": ""}
	if _, errOut, code := runCmd(t, env, "pair", "--scope", "admin"); code != 1 || !strings.Contains(errOut, "--scope") {
		t.Errorf("--scope admin: exit %d, %q", code, errOut)
	}
	// Nothing listens on a port just closed.
	d := startPairingDaemon(t, t.TempDir(), false)
	addr := d.Addr()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCmd(t, env, "pair", "--addr", addr); code != 1 || !strings.Contains(errOut, "not reachable") {
		t.Errorf("no daemon: exit %d, %q", code, errOut)
	}
	// Another cdevd's owner token is refused.
	other := startPairingDaemon(t, t.TempDir(), false)
	if _, errOut, code := runCmd(t, env, "pair", "--addr", other.Addr()); code != 1 || !strings.Contains(errOut, "401") {
		t.Errorf("another cdevd: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCmd(t, env, "devices", "explode"); code != 1 || !strings.Contains(errOut, "usage") {
		t.Errorf("devices explode: exit %d, %q", code, errOut)
	}
}
