package transport

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// Every HTTP response carries the security headers, whichever path
// answers it: the probes, /metrics, refusals, the mux's own 404, 405 and
// redirects. Every refusal (status 400 or more) also says Connection:
// close, and the server does close it: a refused client cannot keep its
// connection, and the slot it holds, by asking again.
func TestEveryResponseGuarded(t *testing.T) {
	s := startServer(t, Config{Ready: func() bool { return false }, AllowHosts: []string{"dev.box"}})
	auth := "Authorization: Bearer " + testToken + "\r\n"
	for _, c := range []struct {
		name, request string
		status        int
	}{
		{"healthz", "GET /healthz", http.StatusOK},
		{"healthz, allowed host", "GET /healthz HTTP/1.1\r\nHost: dev.box", http.StatusOK},
		{"readyz, not ready", "GET /readyz", http.StatusServiceUnavailable},
		{"metrics", "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth[:len(auth)-2], http.StatusOK},
		{"metrics without token", "GET /metrics", http.StatusUnauthorized},
		{"ws without token", "GET /ws", http.StatusUnauthorized},
		{"ws, foreign origin", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n" + auth[:len(auth)-2], http.StatusForbidden},
		{"ws, not an upgrade", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth[:len(auth)-2], http.StatusBadRequest},
		{"foreign host", "GET /healthz HTTP/1.1\r\nHost: evil.example", http.StatusForbidden},
		{"wrong method", "POST /healthz", http.StatusMethodNotAllowed},
		{"unknown path", "GET /nope", http.StatusNotFound},
		{"mux redirect", "GET /x/../healthz", http.StatusTemporaryRedirect},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := c.request
			if !strings.Contains(req, "\r\n") {
				req += " HTTP/1.1\r\nHost: 127.0.0.1"
			}
			conn := dialTCP(t, s.addr)
			write(t, conn, req+"\r\nContent-Length: 0\r\n\r\n")
			resp, err := readResponse(t, conn, bufio.NewReader(conn), wait)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			for _, h := range securityHeaders {
				if got := resp.Header.Get(h.name); got != h.value {
					t.Errorf("%s: %q, want %q", h.name, got, h.value)
				}
			}
			if c.status < 400 {
				if resp.Close {
					t.Errorf("a %d closes its connection; want it kept alive", c.status)
				}
				return
			}
			if !resp.Close {
				t.Errorf("a %d without Connection: close", c.status)
			}
			awaitServerClose(t, conn, "a refused request's connection")
		})
	}
}

// The console's pages keep the console's own policy: the guard sets its
// headers first, and a handler may replace them.
func TestConsoleKeepsItsPolicy(t *testing.T) {
	const csp = "default-src 'self'"
	console := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
	})
	s := startServer(t, Config{Console: console})
	resp, err := http.Get(s.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Values("Content-Security-Policy"); len(got) != 1 || got[0] != csp {
		t.Errorf("console page's policy: %q, want only %q", got, csp)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("console page's X-Content-Type-Options: %q", got)
	}
}
