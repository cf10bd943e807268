package auth

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const ownerTok = "0123456789abcdef0123456789abcdef0123456789abcdef"

type api struct {
	t   *testing.T
	svc *Service
	srv *httptest.Server
	clk *clock
}

func newAPI(t *testing.T, approval bool) *api {
	t.Helper()
	c := newClock()
	svc, err := NewService(Config{OwnerToken: ownerTok, DeviceFile: filepath.Join(t.TempDir(), "devices.json"),
		Approval: approval, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(srv.Close)
	return &api{t: t, svc: svc, srv: srv, clk: c}
}

// do sends a request as the app does and decodes the JSON answer.
func (a *api) do(method, path, bearer string, body any) (int, map[string]any) {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, a.srv.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		a.t.Fatalf("%s %s: %d, body not JSON: %q", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

func (a *api) pair(name string, scope Scope) Ticket {
	a.t.Helper()
	t, err := a.svc.Pair(name, scope)
	if err != nil {
		a.t.Fatal(err)
	}
	return t
}

// isoTime checks an ISO 8601 time the app parses (whole seconds, UTC).
func isoTime(t *testing.T, field string, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil || !strings.HasSuffix(s, "Z") || strings.Contains(s, ".") {
		t.Errorf("%s = %q: want an ISO 8601 UTC time in whole seconds", field, v)
	}
	return tm
}

func checkTokens(t *testing.T, a *api, body map[string]any) (access, refresh string) {
	t.Helper()
	access, _ = body["access_token"].(string)
	refresh, _ = body["refresh_token"].(string)
	if !strings.HasPrefix(access, AccessPrefix) || !strings.HasPrefix(refresh, RefreshPrefix) {
		t.Fatalf("tokens %v", body)
	}
	if got := isoTime(t, "access_token_expires_at", body["access_token_expires_at"]); !got.Equal(a.clk.now().Add(AccessTTL)) {
		t.Errorf("access expires %v, want in %v", got, AccessTTL)
	}
	if got := isoTime(t, "refresh_token_expires_at", body["refresh_token_expires_at"]); !got.Equal(a.clk.now().Add(RefreshTTL)) {
		t.Errorf("refresh expires %v, want in %v", got, RefreshTTL)
	}
	return access, refresh
}

// The app's typed-host path, in its order: info, code, exchange, then
// refresh and revoke.
func TestAppPairsWithACode(t *testing.T) {
	a := newAPI(t, false)
	tk := a.pair("Anna's phone", ScopeControl)
	if len(tk.Code) != 6 || !strings.HasPrefix(tk.PairingToken, PairingPrefix) {
		t.Fatalf("ticket %+v", tk)
	}

	st, info := a.do("GET", "/api/pair/info", "", nil)
	host := strings.TrimPrefix(a.srv.URL, "http://")
	if st != 200 || info["ws"] != "ws://"+host+"/ws" || info["http"] != "http://"+host || info["auth_required"] != true {
		t.Fatalf("info: %d %v", st, info)
	}
	for _, k := range []string{"session", "repo", "token", "token_expires_at"} {
		if _, ok := info[k].(string); !ok {
			t.Errorf("info.%s is not a string: %v", k, info)
		}
	}

	st, code := a.do("POST", "/api/pair/code", "", map[string]string{"code": tk.Code})
	ptok, _ := code["pairing_token"].(string)
	if st != 200 || !strings.HasPrefix(ptok, PairingPrefix) {
		t.Fatalf("code: %d %v", st, code)
	}
	st, body := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": ptok})
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, body)
	}
	access, refresh := checkTokens(t, a, body)
	p, err := a.svc.Authenticator().AuthenticateCredential(access, nil)
	if err != nil || p.Name != "Anna's phone" || p.Scope != ScopeControl {
		t.Fatalf("the access token names %+v (%v)", p, err)
	}

	a.clk.advance(13 * time.Minute) // the app refreshes 2 minutes before expiry
	st, body = a.do("POST", "/api/auth/refresh", "", map[string]string{"refresh_token": refresh})
	if st != 200 {
		t.Fatalf("refresh: %d %v", st, body)
	}
	access2, refresh2 := checkTokens(t, a, body)
	if access2 == access || refresh2 == refresh {
		t.Error("refresh did not rotate both tokens")
	}

	if st, _ := a.do("POST", "/api/auth/revoke", "", map[string]string{"refresh_token": refresh2}); st != 200 {
		t.Fatalf("revoke: %d", st)
	}
	if _, err := a.svc.Authenticator().AuthenticateCredential(access2, nil); err == nil {
		t.Error("the revoked device's access token is accepted")
	}
	if st, _ := a.do("POST", "/api/auth/refresh", "", map[string]string{"refresh_token": refresh2}); st != 401 {
		t.Errorf("refresh after revoke: %d, want 401", st)
	}
	// Revoking again, or an unknown token, answers the same.
	if st, _ := a.do("POST", "/api/auth/revoke", "", map[string]string{"refresh_token": "cdev_r_nope"}); st != 200 {
		t.Errorf("revoke of an unknown token: %d, want 200", st)
	}
}

// The QR path: the pairing token is exchanged directly, once.
func TestQRPairingTokenIsOneUse(t *testing.T) {
	a := newAPI(t, false)
	tk := a.pair("", ScopeWatch)
	st, body := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": tk.PairingToken})
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, body)
	}
	access, _ := checkTokens(t, a, body)
	if p, _ := a.svc.Authenticator().AuthenticateCredential(access, nil); p.Scope != ScopeWatch {
		t.Errorf("scope %q, want watch", p.Scope)
	}
	if st, _ := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": tk.PairingToken}); st != 401 {
		t.Errorf("second exchange: %d, want 401", st)
	}
	// Its code died with it.
	if st, _ := a.do("POST", "/api/pair/code", "", map[string]string{"code": tk.Code}); st != 401 {
		t.Errorf("the used pairing's code: %d, want 401", st)
	}
}

func TestCodeIsOneUseAndExpires(t *testing.T) {
	a := newAPI(t, false)
	tk := a.pair("", ScopeControl)
	if st, _ := a.do("POST", "/api/pair/code", "", map[string]string{"code": tk.Code}); st != 200 {
		t.Fatalf("code: %d", st)
	}
	if st, _ := a.do("POST", "/api/pair/code", "", map[string]string{"code": tk.Code}); st != 401 {
		t.Errorf("the same code again: %d, want 401", st)
	}
	// Typing the code replaced the QR's token.
	if st, _ := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": tk.PairingToken}); st != 401 {
		t.Errorf("the QR token after the code was typed: %d, want 401", st)
	}

	late := a.pair("", ScopeControl)
	a.clk.advance(CodeTTL)
	if st, _ := a.do("POST", "/api/pair/code", "", map[string]string{"code": late.Code}); st != 401 {
		t.Errorf("expired code: %d, want 401", st)
	}
	a.clk.advance(PairingTTL)
	if st, _ := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": late.PairingToken}); st != 401 {
		t.Errorf("expired pairing token: %d, want 401", st)
	}
}

func wrongCode(right string) string {
	if right == "000000" {
		return "000001"
	}
	return "000000"
}

func TestCodeDiesAfterAFewWrongTries(t *testing.T) {
	a := newAPI(t, false)
	tk := a.pair("", ScopeControl)
	for i := range maxCodeFailures {
		a.clk.advance(time.Minute) // within every rate limit
		if st, _ := a.do("POST", "/api/pair/code", "", map[string]string{"code": wrongCode(tk.Code)}); st != 401 {
			t.Fatalf("wrong code %d: %d, want 401", i, st)
		}
	}
	a.clk.advance(time.Minute)
	if st, _ := a.do("POST", "/api/pair/code", "", map[string]string{"code": tk.Code}); st != 401 {
		t.Errorf("the right code after %d wrong ones: %d, want 401", maxCodeFailures, st)
	}
	// The QR's token is not a code: it still works.
	if st, _ := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": tk.PairingToken}); st != 200 {
		t.Errorf("the QR token: %d, want 200", st)
	}
}

// tryCode posts a code from addr straight to the handler (httptest's
// server cannot take other source addresses).
func tryCode(h http.Handler, addr, code string) int {
	r := httptest.NewRequest("POST", "/api/pair/code", strings.NewReader(`{"code":"`+code+`"}`))
	r.RemoteAddr = addr
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

func TestCodeGuessingIsLimitedPerAddressAndOverall(t *testing.T) {
	a := newAPI(t, false)
	h := a.svc.Handler()
	for i := range perAddressBurst {
		if st := tryCode(h, "192.0.2.1:1000", "123456"); st != 401 {
			t.Fatalf("try %d: %d, want 401", i, st)
		}
	}
	if st := tryCode(h, "192.0.2.1:1001", "123456"); st != http.StatusTooManyRequests {
		t.Errorf("one address past its limit (another port): %d, want 429", st)
	}
	// Other addresses share the overall limit, of which the first address
	// used perAddressBurst.
	got429 := 0
	for i := range 2 * overallBurst {
		if tryCode(h, "198.51.100."+string(rune('a'+i))+":1", "123456") == http.StatusTooManyRequests {
			got429++
		}
	}
	if want := 2*overallBurst - (overallBurst - perAddressBurst); got429 != want {
		t.Errorf("%d of %d guesses from many addresses refused, want %d", got429, 2*overallBurst, want)
	}
	// A minute later the addresses may try again.
	a.clk.advance(time.Minute)
	if st := tryCode(h, "192.0.2.1:1000", "123456"); st != 401 {
		t.Errorf("after a minute: %d, want 401", st)
	}
}

func TestApprovalPendingThenApproved(t *testing.T) {
	a := newAPI(t, true)
	tk := a.pair("tablet", ScopeWatch)
	body := map[string]string{"pairing_token": tk.PairingToken}
	st, pending := a.do("POST", "/api/auth/exchange", "", body)
	if st != 202 || pending["status"] != "pending_approval" || pending["request_id"] != tk.RequestID {
		t.Fatalf("before approval: %d %v", st, pending)
	}
	isoTime(t, "expires_at", pending["expires_at"])
	// The app repeats the same request while waiting.
	if st, _ := a.do("POST", "/api/auth/exchange", "", body); st != 202 {
		t.Errorf("repeated: %d, want 202", st)
	}
	reqs := a.svc.Requests()
	if len(reqs) != 1 || reqs[0].Status != "pending_approval" || reqs[0].Address != "127.0.0.1" {
		t.Errorf("requests: %+v", reqs)
	}
	if err := a.svc.Approve(tk.RequestID); err != nil {
		t.Fatal(err)
	}
	st, tokens := a.do("POST", "/api/auth/exchange", "", body)
	if st != 200 {
		t.Fatalf("after approval: %d %v", st, tokens)
	}
	checkTokens(t, a, tokens)
	if d := a.svc.Store.List(); len(d) != 1 || d[0].Name != "tablet" || d[0].Scope != ScopeWatch {
		t.Errorf("devices: %+v", d)
	}
}

func TestApprovalRejected(t *testing.T) {
	a := newAPI(t, true)
	tk := a.pair("", ScopeControl)
	body := map[string]string{"pairing_token": tk.PairingToken}
	if st, _ := a.do("POST", "/api/auth/exchange", "", body); st != 202 {
		t.Fatalf("want 202, got %d", st)
	}
	if err := a.svc.Reject(tk.RequestID); err != nil {
		t.Fatal(err)
	}
	st, out := a.do("POST", "/api/auth/exchange", "", body)
	if st != 403 || !strings.Contains(out["error"].(string), "rejected") {
		t.Errorf("rejected: %d %v, want 403 with \"rejected\"", st, out)
	}
	if st, _ := a.do("POST", "/api/auth/exchange", "", body); st != 401 {
		t.Errorf("after the rejection: %d, want 401", st)
	}
	if err := a.svc.Approve("pair_nope"); err == nil {
		t.Error("approving an unknown request succeeded")
	}
}

func TestReplayedRefreshRevokesTheDevice(t *testing.T) {
	a := newAPI(t, false)
	tk := a.pair("", ScopeControl)
	_, body := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": tk.PairingToken})
	old := body["refresh_token"].(string)
	_, body = a.do("POST", "/api/auth/refresh", "", map[string]string{"refresh_token": old})
	current := body["refresh_token"].(string)
	if st, _ := a.do("POST", "/api/auth/refresh", "", map[string]string{"refresh_token": old}); st != 401 {
		t.Errorf("replayed refresh: %d, want 401", st)
	}
	if st, _ := a.do("POST", "/api/auth/refresh", "", map[string]string{"refresh_token": current}); st != 401 {
		t.Errorf("the legitimate holder after a replay: %d, want 401 (the device is revoked)", st)
	}
}

func TestControlEndpoints(t *testing.T) {
	a := newAPI(t, false)
	if st, _ := a.do("POST", "/api/pair/new", "", map[string]string{}); st != 401 {
		t.Errorf("pair/new without a credential: %d, want 401", st)
	}
	st, tk := a.do("POST", "/api/pair/new", ownerTok, map[string]string{"name": "watcher", "scope": "watch"})
	if st != 200 || tk["scope"] != "watch" || len(tk["code"].(string)) != 6 || tk["ws"] == "" {
		t.Fatalf("pair/new: %d %v", st, tk)
	}
	_, body := a.do("POST", "/api/auth/exchange", "", map[string]string{"pairing_token": tk["pairing_token"].(string)})
	watch := body["access_token"].(string)
	if st, _ := a.do("POST", "/api/pair/new", watch, map[string]string{}); st != 403 {
		t.Errorf("pair/new by a watch device: %d, want 403", st)
	}
	if st, _ := a.do("GET", "/api/devices", watch, nil); st != 403 {
		t.Errorf("devices by a watch device: %d, want 403", st)
	}
	st, list := a.do("GET", "/api/devices", ownerTok, nil)
	devs, _ := list["devices"].([]any)
	if st != 200 || len(devs) != 1 {
		t.Fatalf("devices: %d %v", st, list)
	}
	id := devs[0].(map[string]any)["id"].(string)
	if st, _ := a.do("POST", "/api/devices/revoke", ownerTok, map[string]string{"id": id}); st != 200 {
		t.Errorf("revoke: %d", st)
	}
	if st, _ := a.do("POST", "/api/devices/revoke", ownerTok, map[string]string{"id": id}); st != 404 {
		t.Errorf("revoke again: %d, want 404", st)
	}
	if st, _ := a.do("POST", "/api/devices/explode", ownerTok, map[string]string{"id": id}); st != 404 {
		t.Errorf("unknown action: %d, want 404", st)
	}
	if st, _ := a.do("POST", "/api/pair/new", ownerTok, map[string]string{"scope": "admin"}); st != 400 {
		t.Errorf("unknown scope: %d, want 400", st)
	}
	if st, _ := a.do("POST", "/api/pair/new", ownerTok, map[string]string{"name": "a\x1bb"}); st != 400 {
		t.Errorf("a name with a control character: %d, want 400", st)
	}
}

func TestBadBodies(t *testing.T) {
	a := newAPI(t, false)
	post := func(path, body string) int {
		resp, err := http.Post(a.srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	cases := []struct {
		path, body string
		want       int
	}{
		{"/api/pair/code", `not json`, 400},
		{"/api/pair/code", `{"code":"12345"}`, 400},
		{"/api/pair/code", `{"code":"12345a"}`, 400},
		{"/api/pair/code", `{"code":123456}`, 400},
		{"/api/auth/exchange", `{"pairing_token":"` + strings.Repeat("x", 8<<10) + `"}`, 413},
		{"/api/auth/exchange", `{}`, 401},
		{"/api/auth/refresh", `[]`, 400},
		{"/api/auth/refresh", `{"refresh_token":"cdev_r_nope"}`, 401},
	}
	for _, c := range cases {
		if got := post(c.path, c.body); got != c.want {
			t.Errorf("%s %.40s: %d, want %d", c.path, c.body, got, c.want)
		}
	}
	resp, err := http.Get(a.srv.URL + "/api/auth/exchange")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET exchange: %d, want 405", resp.StatusCode)
	}
}
