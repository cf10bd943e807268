package transport

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// dialTCP opens a plain TCP connection to the server, closed when the test ends.
func dialTCP(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func write(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}

const healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

// readResponse reads one HTTP response from br within d.
func readResponse(t *testing.T, c net.Conn, br *bufio.Reader, d time.Duration) (*http.Response, error) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(br, nil)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

// awaitServerClose reads until the server closes c, failing after wait.
func awaitServerClose(t *testing.T, c net.Conn, what string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: still open after %v", what, wait)
	}
}

// Keep-alive connections idle past IdleTimeout, and connections that never
// finish their headers, are closed; a WebSocket idle for longer lives on:
// the HTTP deadlines end at the upgrade.
func TestHTTPTimeoutsSpareWebSockets(t *testing.T) {
	const d = 300 * time.Millisecond
	s := startServer(t, Config{ReadHeaderTimeout: d, ReadTimeout: d, IdleTimeout: d})
	ws, _ := s.rawConn(t)
	if resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo"}`)); resp.Error != nil {
		t.Fatal(resp.Error)
	}

	idle := dialTCP(t, s.addr)
	write(t, idle, healthz)
	br := bufio.NewReader(idle)
	if resp, err := readResponse(t, idle, br, wait); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	answered := time.Now()
	awaitServerClose(t, idle, "an idle keep-alive connection")
	if since := time.Since(answered); since < d/2 {
		t.Errorf("keep-alive connection closed %v after its reply; IdleTimeout is %v", since, d)
	}

	slow := dialTCP(t, s.addr)
	write(t, slow, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n") // and never the blank line
	awaitServerClose(t, slow, "a connection that never finished its headers")

	// Idle for longer than every HTTP timeout by now.
	if resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`)); string(resp.Result) != "[2]" {
		t.Fatalf("websocket after the HTTP timeouts: %+v", resp)
	}
}

// Connections that are not WebSockets are capped: a newcomer closes the
// oldest connection that has not sent a request yet, and waits only while
// every slot serves one. WebSockets do not count against that cap, keep
// working while it is reached, and have a cap of their own (503 beyond it).
func TestConnectionCaps(t *testing.T) {
	entered := make(chan struct{}, 4)
	release := make(chan struct{})
	console := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-release
	})
	s := startServer(t, Config{MaxHTTPConns: 2, MaxConns: 2, Console: console})
	t.Cleanup(func() { close(release) }) // before Shutdown, which waits for handlers
	a, _ := s.rawConn(t)
	b, _ := s.rawConn(t)

	// Two connections that never finish their headers take both slots,
	// and the oldest makes room for a newcomer.
	h1 := dialTCP(t, s.addr)
	write(t, h1, "GET /healthz HTTP/1.1\r\n")
	h2 := dialTCP(t, s.addr)
	write(t, h2, "GET /healthz HTTP/1.1\r\n")
	if resp := getOnFreshConn(t, s.addr, "/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz with both slots half-sent: %d", resp.StatusCode)
	}
	awaitServerClose(t, h1, "the oldest connection without a request")

	// Two requests being served hold both slots: a newcomer waits.
	for range 2 {
		write(t, dialTCP(t, s.addr), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		await(t, entered, "the console handler")
	}
	queued := dialTCP(t, s.addr)
	write(t, queued, healthz)
	br := bufio.NewReader(queued)
	// Not answered while the slots are held (a bounded look: it must not
	// come at all until a slot frees).
	if resp, err := readResponse(t, queued, br, 300*time.Millisecond); err == nil {
		t.Fatalf("a connection over the cap was served: %v", resp.Status)
	}
	for i, c := range []*websocket.Conn{a, b} {
		if resp := decodeResponse(t, roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)); string(resp.Result) != "[1]" {
			t.Fatalf("websocket %d while the HTTP cap is reached: %+v", i, resp)
		}
	}
	release <- struct{}{}
	if resp, err := readResponse(t, queued, br, wait); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("queued request once a slot freed: %v %v", resp, err)
	}
	queued.Close()

	_, resp, err := s.dial(t, s.url, bearer(testToken))
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third websocket: %v %v, want 503", resp, err)
	}
	a.Close()
	await(t, s.h.closed, "the server to notice a websocket closed")
	if _, _, err := s.dial(t, s.url, bearer(testToken)); err != nil {
		t.Fatalf("a websocket after one closed: %v", err)
	}
	await(t, s.h.opened, "Open")
}

// Refusals are logged at most refusalLogRate a second; the next line says
// how many were not.
func TestRefusalLogRateLimited(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	s := startServer(t, Config{Logger: zap.New(core)})
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	s.now = func() time.Time { return time.Unix(0, now.Load()) }

	const n = 20
	for range n {
		if code, _ := get(t, s.base+"/ws", nil); code != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", code)
		}
	}
	if got := logs.FilterMessage("request refused").Len(); got != refusalLogRate {
		t.Fatalf("%d refusals logged %d lines, want %d", n, got, refusalLogRate)
	}
	now.Add(int64(time.Second))
	get(t, s.base+"/ws", nil)
	lines := logs.FilterMessage("request refused").All()
	if len(lines) != refusalLogRate+1 {
		t.Fatalf("%d lines after a second, want %d", len(lines), refusalLogRate+1)
	}
	if got := lines[len(lines)-1].ContextMap()["suppressed"]; got != int64(n-refusalLogRate) {
		t.Errorf("suppressed = %v, want %d", got, n-refusalLogRate)
	}
}

// The Host check (DNS rebinding) covers the probes and /metrics too.
func TestHostCheckOnEveryPath(t *testing.T) {
	s := startServer(t, Config{AllowHosts: []string{"dev.box"}})
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/nope"} {
		for host, want := range map[string]int{"evil.example": http.StatusForbidden, "localhost:1": 0, "dev.box": 0} {
			req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = host
			req.Header = bearer(testToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if (want == 0) == (resp.StatusCode == http.StatusForbidden) {
				t.Errorf("%s with Host %s: %d", path, host, resp.StatusCode)
			}
		}
	}
}

// A WebSocket dialled anywhere but /ws (the console's /, a typo) is
// refused with a 404 that names /ws, not answered with the console's page
// (a 200 that the client reports as a refusal saying nothing); a refused
// token is told where to get one.
func TestRefusalsSayWhatToDo(t *testing.T) {
	s := startServer(t, Config{Console: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>console</html>"))
	})})
	read := func(resp *http.Response) string {
		t.Helper()
		if resp == nil {
			t.Fatal("no response")
		}
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	for _, path := range []string{"/", "/w", "/ws/", "/console"} {
		d := websocket.Dialer{HandshakeTimeout: wait}
		ws, resp, err := d.Dial("ws://"+s.addr+path, bearer(testToken))
		if err == nil {
			ws.Close()
			t.Fatalf("%s: upgraded", path)
		}
		body := read(resp)
		want := "cdevd's WebSocket endpoint is /ws: connect to ws://" + s.addr + "/ws"
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, want) {
			t.Errorf("%s: %s %q, want 404 saying %q", path, resp.Status, body, want)
		}
	}
	// The console itself is still served.
	if code, body := get(t, s.base+"/", nil); code != http.StatusOK || !strings.Contains(body, "console") {
		t.Errorf("/ = %d %q", code, body)
	}

	d := websocket.Dialer{HandshakeTimeout: wait}
	_, resp, err := d.Dial(s.url, bearer("wrong"))
	if err == nil {
		t.Fatal("a wrong token was accepted")
	}
	for what, body := range map[string]string{"/ws": read(resp), "/metrics": func() string { _, b := get(t, s.base+"/metrics", nil); return b }()} {
		for _, w := range []string{"Unauthorized", "`cdevd token`", "Authorization: Bearer <token>"} {
			if !strings.Contains(body, w) {
				t.Errorf("%s refused a token with %q, which lacks %q", what, body, w)
			}
		}
	}
	// A refused Host still learns nothing.
	req, _ := http.NewRequest("GET", s.base+"/", nil)
	req.Host = "evil.example"
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	hresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if body := read(hresp); hresp.StatusCode != http.StatusForbidden || body != "Forbidden\n" {
		t.Errorf("foreign host: %d %q", hresp.StatusCode, body)
	}
	hresp.Body.Close()
}
