package contracttests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// httpAPI calls cdevd's HTTP API as the iOS app does (JSON in, JSON out)
// and returns the status and the decoded body.
func httpAPI(t *testing.T, ctx context.Context, base, method, path, bearer string, body any, hdr http.Header) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Close = true // no idle keep-alive connection outlives the test
	for k, v := range hdr {
		req.Header[k] = v
	}
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out) // refusals before the API are plain text
	if out == nil {
		out = map[string]any{"text": string(raw)}
	}
	return resp.StatusCode, out
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// logBuffer collects a daemon's log lines, to look for secrets in them.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *zap.Logger {
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(l), zap.DebugLevel))
}

// pairingDaemon starts cdevd on home with the scripted runtime; stop ends
// it (and is safe to call again at cleanup).
func pairingDaemon(t *testing.T, home string, logs *logBuffer, approval bool) (d *daemon.Daemon, base string, stop func()) {
	t.Helper()
	sc := scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()}
	d, err := daemon.Start(daemon.Config{Home: home, Addr: "127.0.0.1:0", Adapters: []runtimes.Adapter{scripted.New(sc)},
		PairingApproval: approval, Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			defer cancel()
			if err := d.Shutdown(ctx); err != nil {
				t.Errorf("shutdown: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return d, "http://" + d.Addr(), stop
}

// newPairing asks the running cdevd for a pairing, as `cdevd pair` does.
func newPairing(t *testing.T, ctx context.Context, base, owner, name, scope string) map[string]any {
	t.Helper()
	st, tk := httpAPI(t, ctx, base, "POST", "/api/pair/new", owner, map[string]string{"name": name, "scope": scope}, nil)
	if st != 200 || len(str(tk, "code")) != 6 || !strings.HasPrefix(str(tk, "pairing_token"), "cdev_p_") {
		t.Fatalf("pair/new: %d %v", st, tk)
	}
	return tk
}

// The iOS app's requests, in its order (typed host and code): info, code,
// exchange, the WebSocket with the access token, refresh; then the same
// device after cdevd restarts; then revoke, which closes its socket.
func TestAppPairingFlow(t *testing.T) {
	inProcessOnly(t)
	ctx := testCtx(t)
	home := t.TempDir()
	logs := &logBuffer{}
	d, base, stop := pairingDaemon(t, home, logs, false)
	tk := newPairing(t, ctx, base, d.Token(), "iPhone", "control")
	secrets := []string{str(tk, "pairing_token"), str(tk, "code")}

	st, info := httpAPI(t, ctx, base, "GET", "/api/pair/info", "", nil, nil)
	if st != 200 || str(info, "ws") != d.URL() || str(info, "http") != base || info["auth_required"] != true {
		t.Fatalf("info: %d %v", st, info)
	}
	st, code := httpAPI(t, ctx, base, "POST", "/api/pair/code", "", map[string]string{"code": str(tk, "code")}, nil)
	if st != 200 {
		t.Fatalf("code: %d %v", st, code)
	}
	st, pair := httpAPI(t, ctx, base, "POST", "/api/auth/exchange", "", map[string]string{"pairing_token": str(code, "pairing_token")}, nil)
	if st != 200 || !strings.HasPrefix(str(pair, "access_token"), "cdev_s_") || !strings.HasPrefix(str(pair, "refresh_token"), "cdev_r_") {
		t.Fatalf("exchange: %d %v", st, pair)
	}
	secrets = append(secrets, str(code, "pairing_token"), str(pair, "access_token"), str(pair, "refresh_token"))

	c, init := Connect(t, ctx, d.URL(), str(pair, "access_token"))
	if !strings.HasPrefix(init.Device.ID, "dev_") || init.Device.Name != "iPhone" || init.Device.Scope != "control" {
		t.Errorf("initialize.device = %+v, want the paired iPhone with control", init.Device)
	}
	if !strings.HasPrefix(init.ClientID, init.Device.ID+":") {
		t.Errorf("clientId %q does not name device %s", init.ClientID, init.Device.ID)
	}
	c.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, nil)
	c.Close()

	st, pair2 := httpAPI(t, ctx, base, "POST", "/api/auth/refresh", "", map[string]string{"refresh_token": str(pair, "refresh_token")}, nil)
	if st != 200 || str(pair2, "access_token") == str(pair, "access_token") || str(pair2, "refresh_token") == str(pair, "refresh_token") {
		t.Fatalf("refresh: %d %v", st, pair2)
	}
	secrets = append(secrets, str(pair2, "access_token"), str(pair2, "refresh_token"))
	if got := refused(t, ctx, d.URL(), str(pair, "access_token")); got != http.StatusUnauthorized {
		t.Errorf("the replaced access token: HTTP %d, want 401", got)
	}

	// cdevd restarts: the app refreshes before it reconnects.
	stop()
	d, base, _ = pairingDaemon(t, home, logs, false)
	st, pair3 := httpAPI(t, ctx, base, "POST", "/api/auth/refresh", "", map[string]string{"refresh_token": str(pair2, "refresh_token")}, nil)
	if st != 200 {
		t.Fatalf("refresh after a restart: %d %v", st, pair3)
	}
	secrets = append(secrets, str(pair3, "access_token"), str(pair3, "refresh_token"))
	c, again := Connect(t, ctx, d.URL(), str(pair3, "access_token"))
	if again.Device.ID != init.Device.ID {
		t.Errorf("after a restart the device is %s, want %s", again.Device.ID, init.Device.ID)
	}

	// The app signs out: its open socket is closed at once.
	st, _ = httpAPI(t, ctx, base, "POST", "/api/auth/revoke", "", map[string]string{"refresh_token": str(pair3, "refresh_token")}, nil)
	if st != 200 {
		t.Fatalf("revoke: %d", st)
	}
	closedWithin(t, c, time.Second)
	if got := refused(t, ctx, d.URL(), str(pair3, "access_token")); got != http.StatusUnauthorized {
		t.Errorf("a revoked device's access token: HTTP %d, want 401", got)
	}
	if st, _ := httpAPI(t, ctx, base, "POST", "/api/auth/refresh", "", map[string]string{"refresh_token": str(pair3, "refresh_token")}, nil); st != 401 {
		t.Errorf("a revoked device's refresh: HTTP %d, want 401", st)
	}

	noSecretIn(t, "the log", logs.String(), secrets)
	if !strings.Contains(logs.String(), init.Device.ID) {
		t.Errorf("no log line names device %s", init.Device.ID)
	}
	_ = filepath.WalkDir(home, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		noSecretIn(t, p, string(b), secrets)
		if fi, _ := e.Info(); filepath.Base(p) == "devices.json" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", p, fi.Mode().Perm())
		}
		return nil
	})
}

func noSecretIn(t *testing.T, where, text string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s holds a secret (%.9s…)", where, s)
		}
	}
}

// closedWithin waits for the server to close c's socket, with 1008.
func closedWithin(t *testing.T, c *Client, limit time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case <-c.Done():
	case <-time.After(limit):
		t.Fatalf("the revoked device's socket is still open after %v", limit)
	}
	if code := c.CloseCode(); code != 1008 {
		t.Errorf("closed with %d after %v, want 1008", code, time.Since(start))
	}
}

func TestPairingWaitsForApproval(t *testing.T) {
	inProcessOnly(t)
	ctx := testCtx(t)
	d, base, _ := pairingDaemon(t, t.TempDir(), &logBuffer{}, true)
	owner := d.Token()
	for _, decision := range []string{"approve", "reject"} {
		t.Run(decision, func(t *testing.T) {
			tk := newPairing(t, ctx, base, owner, "tablet", "watch")
			body := map[string]string{"pairing_token": str(tk, "pairing_token")}
			st, pending := httpAPI(t, ctx, base, "POST", "/api/auth/exchange", "", body, nil)
			if st != 202 || str(pending, "status") != "pending_approval" || str(pending, "request_id") != str(tk, "request_id") {
				t.Fatalf("before the host decides: %d %v", st, pending)
			}
			_, list := httpAPI(t, ctx, base, "GET", "/api/devices", owner, nil, nil)
			reqs, _ := list["requests"].([]any)
			if !slices.ContainsFunc(reqs, func(r any) bool {
				m := r.(map[string]any)
				return m["request_id"] == tk["request_id"] && m["status"] == "pending_approval"
			}) {
				t.Fatalf("the pending request is not listed: %v", list)
			}
			if st, _ := httpAPI(t, ctx, base, "POST", "/api/devices/"+decision, owner, map[string]any{"id": tk["request_id"]}, nil); st != 200 {
				t.Fatalf("%s: %d", decision, st)
			}
			st, out := httpAPI(t, ctx, base, "POST", "/api/auth/exchange", "", body, nil)
			switch decision {
			case "approve":
				if st != 200 || str(out, "access_token") == "" {
					t.Fatalf("after approval: %d %v", st, out)
				}
				_, init := Connect(t, ctx, d.URL(), str(out, "access_token"))
				if init.Device.Scope != "watch" {
					t.Errorf("scope %q, want watch", init.Device.Scope)
				}
			case "reject":
				if st != 403 || !strings.Contains(str(out, "error"), "rejected") {
					t.Errorf("after rejection: %d %v, want 403 \"rejected\"", st, out)
				}
			}
		})
	}
}

// pairDevice pairs a device through the QR path and returns its access token.
func pairDevice(t *testing.T, ctx context.Context, base, owner, name, scope string) string {
	t.Helper()
	tk := newPairing(t, ctx, base, owner, name, scope)
	st, pair := httpAPI(t, ctx, base, "POST", "/api/auth/exchange", "", map[string]string{"pairing_token": str(tk, "pairing_token")}, nil)
	if st != 200 {
		t.Fatalf("exchange: %d %v", st, pair)
	}
	return str(pair, "access_token")
}

// A watch device may read but not act: every method the contract marks
// as acting answers -32003 naming the method and the scope, and does
// nothing; the owner's same calls are not refused for scope.
func TestWatchDeviceCannotAct(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	base := "http://" + e.d.Addr()
	watch, _ := Connect(t, ctx, e.url, pairDevice(t, ctx, base, e.token, "wall screen", "watch"))
	owner := e.connect(ctx)
	acting := 0
	for _, m := range rpc.Methods {
		if !slices.Contains(m.Errors, rpc.CodeForbidden) {
			continue
		}
		acting++
		params := openrpc.Examples[m.Name].Params
		_, rerr := watch.Call(ctx, m.Name, params)
		if rerr == nil || rerr.Code != rpc.CodeForbidden {
			t.Errorf("%s by a watch device: %v, want -32003", m.Name, rerr)
			continue
		}
		data, _ := rerr.Data.(map[string]any)
		if data["method"] != m.Name || data["scope"] != "watch" {
			t.Errorf("%s: data %v, want the method and scope watch", m.Name, rerr.Data)
		}
		if _, rerr := owner.Call(ctx, m.Name, params); rerr != nil && rerr.Code == rpc.CodeForbidden {
			t.Errorf("%s by the owner: refused for scope", m.Name)
		}
	}
	if acting < 9 {
		t.Errorf("only %d methods act; session/start, send, stop, input, respond, workspace add/remove, activate, delete should", acting)
	}
	var list rpc.WorkspaceListResult
	watch.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, &list)
	for _, w := range list.Workspaces {
		if w.Path == openrpc.ExamplePath {
			t.Errorf("the watch device's workspace/add took effect")
		}
	}
}

// The owner revokes a device while it is connected: its sockets close
// within a second, and nobody else's.
func TestRevokedDeviceIsDisconnected(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	base := "http://" + e.d.Addr()
	phone, init := Connect(t, ctx, e.url, pairDevice(t, ctx, base, e.token, "lost phone", "control"))
	owner := e.connect(ctx)
	if st, _ := httpAPI(t, ctx, base, "POST", "/api/devices/revoke", e.token, map[string]string{"id": init.Device.ID}, nil); st != 200 {
		t.Fatalf("revoke: %d", st)
	}
	closedWithin(t, phone, time.Second)
	owner.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, nil)
}

// The pairing API is behind the Host check (DNS rebinding) and refuses
// pages of other origins (a browser sends Origin with any cross-origin
// POST), including the console's own origin's look-alikes.
func TestPairingAPIChecksHostAndOrigin(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	base := "http://" + e.d.Addr()
	code := map[string]string{"code": "123456"}
	cases := []struct {
		name         string
		method, path string
		hdr          http.Header
		want         int
	}{
		{"foreign origin posts a code", "POST", "/api/pair/code", http.Header{"Origin": {"https://evil.example"}}, 403},
		{"foreign origin exchanges", "POST", "/api/auth/exchange", http.Header{"Origin": {"https://evil.example"}}, 403},
		{"foreign origin refreshes", "POST", "/api/auth/refresh", http.Header{"Origin": {"http://evil.example"}}, 403},
		{"null origin", "POST", "/api/pair/code", http.Header{"Origin": {"null"}}, 403},
		{"rebinding host, info", "GET", "/api/pair/info", http.Header{"Host": {"evil.example:16180"}}, 403},
		{"rebinding host, code", "POST", "/api/pair/code", http.Header{"Host": {"evil.example"}}, 403},
		{"the console's own origin", "POST", "/api/pair/code", http.Header{"Origin": {base}}, 401},
		{"no origin (the app)", "POST", "/api/pair/code", nil, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if st, body := httpAPI(t, ctx, base, tc.method, tc.path, "", code, tc.hdr); st != tc.want {
				t.Errorf("HTTP %d (%v), want %d", st, body, tc.want)
			}
		})
	}
	// Still serving.
	if st, _ := httpAPI(t, ctx, base, "GET", "/api/pair/info", "", nil, nil); st != 200 {
		t.Errorf("info afterwards: %d", st)
	}
}

// A watch device browses a workspace but is refused the files that
// commonly hold secrets; the owner reads them.
func TestWatchDeviceCannotReadSecrets(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	dir := t.TempDir()
	for name, body := range map[string]string{".env": "API_KEY=not-for-the-wall\n", "main.go": "package main\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	owner := e.connect(ctx)
	var w rpc.Workspace
	owner.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	watch, _ := Connect(t, ctx, e.url, pairDevice(t, ctx, "http://"+e.d.Addr(), e.token, "wall screen", "watch"))

	var plain rpc.FileGetResult
	watch.MustCall(ctx, rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: "main.go"}, &plain)
	if plain.Content != "package main\n" {
		t.Errorf("main.go for the watch device: %q", plain.Content)
	}
	_, rerr := watch.Call(ctx, rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: ".env"})
	if rerr == nil || rerr.Code != rpc.CodeInvalidPath || !strings.Contains(rerr.Message+fmt.Sprint(rerr.Data), "may not read") {
		t.Errorf(".env for the watch device: %v, want -32021 saying it may not read it", rerr)
	}
	var secret rpc.FileGetResult
	owner.MustCall(ctx, rpc.MethodFileGet, rpc.FileGetParams{WorkspaceID: w.ID, Path: ".env"}, &secret)
	if !strings.Contains(secret.Content, "API_KEY") {
		t.Errorf(".env for the owner: %q", secret.Content)
	}
}
