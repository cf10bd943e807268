package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/auth"
)

// deviceScheme accepts one credential as a watch device, standing in for
// the device store (tested in auth).
type deviceScheme struct{}

func (deviceScheme) Authenticate(cred string, _ *http.Request) (auth.Principal, bool) {
	if cred != "device-credential" {
		return auth.Principal{}, false
	}
	return auth.Principal{DeviceID: "dev_1", Name: "phone", Scope: auth.ScopeWatch}, true
}

// Each connection carries the principal its credential named, and closing
// a device's connections leaves everyone else's open.
func TestConnectionsCarryTheirPrincipalAndCloseByDevice(t *testing.T) {
	s := startServer(t, Config{Auth: auth.New(auth.OwnerToken(testToken), deviceScheme{})})
	owner, _, err := s.dial(t, s.url, bearer(testToken))
	if err != nil {
		t.Fatal(err)
	}
	if p := await(t, s.h.opened, "Open").Principal(); p.DeviceID != auth.OwnerID || p.Scope != auth.ScopeControl {
		t.Errorf("the owner's connection: %+v", p)
	}
	phone, _, err := s.dial(t, s.url, nil, Subprotocol, bearerPrefix+"device-credential")
	if err != nil {
		t.Fatal(err)
	}
	if p := await(t, s.h.opened, "Open").Principal(); p.DeviceID != "dev_1" || p.Scope != auth.ScopeWatch {
		t.Errorf("the device's connection: %+v", p)
	}
	if _, resp, err := s.dial(t, s.url, bearer("device-credential-x")); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("another credential: %v, want 401", err)
	}

	if n := s.CloseDevice("dev_1"); n != 1 {
		t.Errorf("CloseDevice closed %d connections, want 1", n)
	}
	if code, reason := closeCode(t, phone); code != websocket.ClosePolicyViolation || !strings.Contains(reason, "revoked") {
		t.Errorf("the device's socket: %d %q, want 1008 revoked", code, reason)
	}
	if err := owner.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := owner.ReadMessage(); err != nil {
		t.Errorf("the owner's connection after the device's was closed: %v", err)
	}
}

// The API handler is served under /api/ behind the Host and Origin checks.
func TestAPIIsBehindTheHostAndOriginChecks(t *testing.T) {
	reached := 0
	api := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reached++; w.WriteHeader(http.StatusTeapot) })
	s := startServer(t, Config{API: api})
	post := func(hdr http.Header) int {
		req, _ := http.NewRequest("POST", s.base+"/api/pair/code", strings.NewReader(`{}`))
		req.Close = true
		for k, v := range hdr {
			req.Header[k] = v
		}
		if h := hdr.Get("Host"); h != "" {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name string
		hdr  http.Header
		want int
	}{
		{"a native client", nil, http.StatusTeapot},
		{"another origin", http.Header{"Origin": {"https://evil.example"}}, http.StatusForbidden},
		{"a rebinding host", http.Header{"Host": {"evil.example"}}, http.StatusForbidden},
	} {
		if got := post(tc.hdr); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	if reached != 1 {
		t.Errorf("the API was reached %d times, want once", reached)
	}
}
