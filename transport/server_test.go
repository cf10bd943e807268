package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestTokenInHeader(t *testing.T) {
	s := startServer(t, Config{})
	c, _ := s.client(t)
	var got []string
	if err := c.call(t, "echo", []string{"hi"}, &got); err != nil || len(got) != 1 || got[0] != "hi" {
		t.Fatalf("echo = %q, %v; want [hi]", got, err)
	}
}

func TestTokenInSubprotocol(t *testing.T) {
	s := startServer(t, Config{})
	tests := []struct {
		name  string
		offer []string
		want  string
	}{
		// The token is never echoed; without "cdevd" offered, none is
		// selected (RFC 6455 allows it; Chromium needs "cdevd" offered).
		{"bearer only: none selected", []string{bearerPrefix + testToken}, ""},
		{"with cdevd: cdevd selected", []string{bearerPrefix + testToken, Subprotocol}, Subprotocol},
		{"cdevd first", []string{Subprotocol, bearerPrefix + testToken}, Subprotocol},
		{"with another: none selected", []string{"other", bearerPrefix + testToken}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, resp, err := s.dial(t, s.url, nil, tt.offer...)
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			await(t, s.h.opened, "Open")
			if got := resp.Header.Values("Sec-Websocket-Protocol"); strings.Contains(strings.Join(got, ","), testToken) {
				t.Errorf("the token was echoed in Sec-WebSocket-Protocol: %q", got)
			}
			if ws.Subprotocol() != tt.want {
				t.Errorf("selected subprotocol %q, want %q", ws.Subprotocol(), tt.want)
			}
			reply := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`))
			if string(reply.Result) != "[1]" {
				t.Errorf("result %s, want [1]", reply.Result)
			}
		})
	}
}

func TestUpgradeRefused(t *testing.T) {
	s := startServer(t, Config{AllowOrigins: []string{"https://app.example"}})
	tests := []struct {
		name   string
		path   string
		hdr    http.Header
		protos []string
		status int
	}{
		{"no token", "/ws", nil, nil, http.StatusUnauthorized},
		{"wrong header token", "/ws", bearer("wrong"), nil, http.StatusUnauthorized},
		{"token prefix only", "/ws", bearer(testToken[:5]), nil, http.StatusUnauthorized},
		{"basic auth scheme", "/ws", http.Header{"Authorization": {"Basic " + testToken}}, nil, http.StatusUnauthorized},
		{"wrong subprotocol token", "/ws", nil, []string{bearerPrefix + "wrong"}, http.StatusUnauthorized},
		{"token in query string", "/ws?token=" + testToken, nil, nil, http.StatusUnauthorized},
		{"access_token in query string", "/ws?access_token=" + testToken, nil, nil, http.StatusUnauthorized},
		{"foreign origin", "/ws", http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"https://evil.example"}}, nil, http.StatusForbidden},
		{"origin differing by scheme", "/ws", http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"http://app.example"}}, nil, http.StatusForbidden},
		{"foreign host", "/ws", http.Header{"Authorization": {"Bearer " + testToken}, "Host": {"evil.example:16180"}}, nil, http.StatusForbidden},
		{"host looking like localhost", "/ws", http.Header{"Authorization": {"Bearer " + testToken}, "Host": {"localhost.evil.example:16180"}}, nil, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, resp, err := s.dial(t, strings.TrimSuffix(s.url, "/ws")+tt.path, tt.hdr, tt.protos...)
			if err != websocket.ErrBadHandshake || resp == nil {
				t.Fatalf("dial err = %v, want a refused handshake", err)
			}
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
	if n := s.Conns(); n != 0 {
		t.Errorf("Conns() = %d after refused upgrades", n)
	}
}

func TestUpgradeAccepted(t *testing.T) {
	s := startServer(t, Config{AllowOrigins: []string{"https://app.example"}, AllowHosts: []string{"dev.box"}})
	tests := []struct {
		name string
		hdr  http.Header
	}{
		{"allowed origin", http.Header{"Origin": {"https://app.example"}}},
		{"127.0.0.1", http.Header{"Host": {"127.0.0.1:5555"}}},
		{"localhost", http.Header{"Host": {"localhost:16180"}}},
		{"LOCALHOST without port", http.Header{"Host": {"LOCALHOST"}}},
		{"::1", http.Header{"Host": {"[::1]:16180"}}},
		{"allowlisted host", http.Header{"Host": {"dev.box:16180"}}},
		{"other loopback address", http.Header{"Host": {"127.0.0.2:80"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.hdr.Set("Authorization", "Bearer "+testToken)
			ws, _, err := s.dial(t, s.url, tt.hdr)
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			await(t, s.h.opened, "Open")
			resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`))
			if string(resp.Result) != `{"a":1}` {
				t.Errorf("result %s", resp.Result)
			}
		})
	}
}

func get(t *testing.T, url string, hdr http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hdr
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestProbes(t *testing.T) {
	var ready atomic.Bool
	s := startServer(t, Config{Ready: ready.Load})
	base := s.base

	if code, body := get(t, base+"/healthz", nil); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	if code, _ := get(t, base+"/readyz", nil); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before ready = %d, want 503", code)
	}
	ready.Store(true)
	if code, _ := get(t, base+"/readyz", nil); code != http.StatusOK {
		t.Errorf("/readyz when ready = %d, want 200", code)
	}
	if code, _ := get(t, base+"/nope", bearer(testToken)); code != http.StatusNotFound {
		t.Errorf("/nope = %d, want 404", code)
	}
}

func TestMetrics(t *testing.T) {
	s := startServer(t, Config{})
	c, _ := s.client(t)
	if err := c.call(t, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.call(t, "workspace/list", nil, nil); err == nil {
		t.Fatal("workspace/list: the test handler does not implement it")
	}
	if _, resp, _ := s.dial(t, s.url, bearer("wrong")); resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatal("a wrong token was not refused")
	}

	for _, hdr := range []http.Header{nil, bearer("wrong"), {"Authorization": {testToken}}} {
		if code, _ := get(t, s.base+"/metrics", hdr); code != http.StatusUnauthorized {
			t.Errorf("/metrics with %v = %d, want 401", hdr, code)
		}
	}
	code, body := get(t, s.base+"/metrics", bearer(testToken))
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	for _, line := range []string{
		"cdevd_connections_open 1",
		"cdevd_connections_total 1",
		`cdevd_requests_total{code="ok",method="other"} 1`,
		`cdevd_requests_total{code="-32601",method="workspace/list"} 1`,
		`cdevd_request_duration_seconds_count{method="workspace/list"} 1`,
		`cdevd_upgrades_rejected_total{reason="auth"} 1`,
	} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}

func TestTokenNeverLogged(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	s := startServer(t, Config{Logger: zap.New(core)})

	c, _ := s.client(t)
	if err := c.call(t, "panic", nil, nil); err == nil {
		t.Fatal("panic: no error")
	}
	if _, _, err := s.dial(t, s.url, nil, bearerPrefix+testToken); err != nil {
		t.Fatal(err)
	}
	await(t, s.h.opened, "Open")
	s.dial(t, s.url, bearer(testToken+"x"))
	s.dial(t, s.url, nil, bearerPrefix+testToken+"x")
	s.dial(t, s.url+"?token="+testToken, nil)
	get(t, s.base+"/metrics", bearer(testToken))
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	if logs.Len() == 0 {
		t.Fatal("nothing was logged: the test proves nothing")
	}
	for _, e := range logs.All() {
		fields, _ := json.Marshal(e.ContextMap())
		if strings.Contains(e.Message+string(fields), testToken) {
			t.Errorf("log entry %q %s contains the token", e.Message, fields)
		}
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.0.0.2": true, "::1": true, "[::1]": true,
		"": false, "0.0.0.0": false, "192.168.1.2": false, "[fd00::1]": false, "localhost.evil.example": false,
		"localhost:16180": false, // a port is the caller's to split off
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// A configured token is trimmed as a presented one is, so both sides
// compare alike: " tok " configured accepts "tok" and " tok " presented.
func TestTokenTrimmedOnBothSides(t *testing.T) {
	s := startServer(t, Config{Token: "  " + testToken + "\n"})
	for _, presented := range []string{testToken, " " + testToken + " "} {
		if _, _, err := s.dial(t, s.url, bearer(presented)); err != nil {
			t.Errorf("token %q: %v", presented, err)
			continue
		}
		await(t, s.h.opened, "Open")
	}
	if _, resp, _ := s.dial(t, s.url, bearer(testToken+"x")); resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Error("a wrong token was accepted")
	}
}
