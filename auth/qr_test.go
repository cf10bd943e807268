package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	qrcode "github.com/skip2/go-qrcode"
)

// A pairing made over loopback (the console on the machine itself) puts
// the advertised address in its QR code, the one a phone can reach; the
// image is the QR code of that payload, and its token pairs.
func TestPairNewCarriesTheAdvertisedAddressAndItsQRCode(t *testing.T) {
	c := newClock()
	svc, err := NewService(Config{OwnerToken: ownerTok, DeviceFile: filepath.Join(t.TempDir(), "devices.json"), Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	lan := Addresses{WS: "ws://192.168.1.20:16180/ws", HTTP: "http://192.168.1.20:16180"}
	tailnet := Addresses{WS: "ws://100.101.102.103:16180/ws", HTTP: "http://100.101.102.103:16180"}
	svc.SetAdvertised(func() []Addresses { return []Addresses{lan, tailnet} })
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(srv.Close)
	a := &api{t: t, svc: svc, srv: srv, clk: c}

	st, ans := a.do("POST", "/api/pair/new", ownerTok, map[string]string{"name": "phone", "scope": "control"})
	if st != 200 {
		t.Fatalf("pair/new: %d %v", st, ans)
	}
	if ans["ws"] != lan.WS || ans["http"] != lan.HTTP {
		t.Errorf("pair/new addresses %v %v, want the first advertised %+v", ans["ws"], ans["http"], lan)
	}
	if urls, _ := json.Marshal(ans["urls"]); !strings.Contains(string(urls), tailnet.WS) {
		t.Errorf("urls %s, want every advertised address", urls)
	}
	payload, _ := ans["qr_payload"].(string)
	var qr QRPayload
	if err := json.Unmarshal([]byte(payload), &qr); err != nil {
		t.Fatalf("qr_payload %q: %v", payload, err)
	}
	if qr.WS != lan.WS || qr.HTTP != lan.HTTP || qr.Token != ans["pairing_token"] {
		t.Errorf("QR payload %+v, want the LAN address and the pairing token", qr)
	}
	if !slices.Equal(qr.URLs, []string{lan.WS, tailnet.WS}) {
		t.Errorf("QR payload's urls %v, want every advertised address, best first", qr.URLs)
	}
	img, _ := ans["qr_image"].(string)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(img, "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(img, "data:image/png;base64,") {
		t.Fatalf("qr_image %.40q…: %v", img, err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Fatalf("qr_image is not a PNG: %v", err)
	}
	if want, _ := qrcode.Encode(payload, qrcode.Medium, QRSize); !bytes.Equal(raw, want) {
		t.Error("qr_image is not the QR code of qr_payload")
	}
	if st, body := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": qr.Token}); st != 200 {
		t.Errorf("exchanging the QR code's token: %d %v", st, body)
	}

	// info answers the address asked at, and lists the advertised ones.
	st, info := a.do("GET", "/api/pair/info", "", nil)
	if st != 200 || info["http"] != srv.URL {
		t.Errorf("pair/info: %d %v, want http %s", st, info, srv.URL)
	}
	if urls, _ := json.Marshal(info["urls"]); !strings.Contains(string(urls), lan.WS) || !strings.Contains(string(urls), tailnet.WS) {
		t.Errorf("pair/info urls %s, want the advertised addresses", urls)
	}
}

// Without advertised addresses (a bare service), the request's own
// address goes in the QR code.
func TestPairNewFallsBackToTheRequestsAddress(t *testing.T) {
	a := newAPI(t, false)
	st, ans := a.do("POST", "/api/pair/new", ownerTok, map[string]string{"scope": "watch"})
	if st != 200 {
		t.Fatalf("pair/new: %d %v", st, ans)
	}
	var qr QRPayload
	if err := json.Unmarshal([]byte(ans["qr_payload"].(string)), &qr); err != nil {
		t.Fatal(err)
	}
	if qr.HTTP != a.srv.URL || qr.WS != "ws"+strings.TrimPrefix(a.srv.URL, "http")+"/ws" {
		t.Errorf("QR payload %+v, want %s", qr, a.srv.URL)
	}
}
