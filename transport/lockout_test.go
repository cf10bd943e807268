package transport

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// idleKeepAlive opens a connection, has one /healthz answered on it, and
// leaves it open and idle, as a keep-alive client would.
func idleKeepAlive(t *testing.T, addr string) net.Conn {
	t.Helper()
	c := dialTCP(t, addr)
	write(t, c, healthz)
	if resp, err := readResponse(t, c, bufio.NewReader(c), wait); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	return c
}

// getOnFreshConn sends one GET on a new connection and returns the response.
func getOnFreshConn(t *testing.T, addr, path string) *http.Response {
	t.Helper()
	c := dialTCP(t, addr)
	write(t, c, "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := readResponse(t, c, bufio.NewReader(c), wait)
	if err != nil {
		t.Fatalf("GET %s on a fresh connection: %v", path, err)
	}
	return resp
}

// Idle keep-alive connections filling every slot lock nobody out: a new
// connection closes the oldest idle one and is served, whether it is a
// probe, the console or a WebSocket.
func TestIdleKeepAlivesDoNotLockOut(t *testing.T) {
	console := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "console") })
	s := startServer(t, Config{Console: console})
	held := make([]net.Conn, DefaultMaxHTTPConns)
	for i := range held {
		held[i] = idleKeepAlive(t, s.addr)
	}

	if resp := getOnFreshConn(t, s.addr, "/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz with every slot idle: %d", resp.StatusCode)
	}
	if resp := getOnFreshConn(t, s.addr, "/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the console with every slot idle: %d", resp.StatusCode)
	}
	ws, _ := s.rawConn(t)
	if resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)); string(resp.Result) != "[1]" {
		t.Fatalf("websocket with every slot idle: %+v", resp)
	}

	// The three oldest made room, and only they: the next one still works.
	for _, c := range held[:3] {
		awaitServerClose(t, c, "the oldest idle connection")
	}
	write(t, held[3], healthz)
	if resp, err := readResponse(t, held[3], bufio.NewReader(held[3]), wait); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a newer idle connection: %v %v, want it kept", resp, err)
	}
}

// Requests without a credential can hold only a share of the slots while
// their handlers run: past it they are refused (503, connection closed),
// and a WebSocket upgrade with the token still finds room.
func TestSlowRequestsLeaveRoomForUpgrade(t *testing.T) {
	entered := make(chan struct{}, 16)
	release := make(chan struct{})
	console := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-release
	})
	const slots = 8
	s := startServer(t, Config{Console: console, MaxHTTPConns: slots})
	t.Cleanup(func() { close(release) }) // before the server's Shutdown, which waits for handlers

	share := int(unauthenticatedShare(slots))
	for range share {
		c := dialTCP(t, s.addr)
		write(t, c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		await(t, entered, "the console handler")
	}
	over := dialTCP(t, s.addr)
	write(t, over, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := readResponse(t, over, bufio.NewReader(over), wait)
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || !resp.Close {
		t.Fatalf("a request past the share: %v %v, want 503 with Connection: close", resp, err)
	}
	awaitServerClose(t, over, "a request refused for capacity")

	ws, _ := s.rawConn(t)
	if resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)); string(resp.Result) != "[1]" {
		t.Fatalf("websocket while slow requests hold their share: %+v", resp)
	}
}

// A response to a client that does not read it is abandoned after
// ResponseTimeout: pipelined requests never read must not hold a slot,
// with a handler blocked in its write, for ever.
func TestResponseTimeout(t *testing.T) {
	failed := make(chan error, 1)
	chunk := make([]byte, 64<<10)
	console := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for {
			if _, err := w.Write(chunk); err != nil {
				failed <- err
				return
			}
		}
	})
	s := startServer(t, Config{Console: console, ResponseTimeout: 200 * time.Millisecond})
	c := dialTCP(t, s.addr)
	write(t, c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") // and never read
	await(t, failed, "the response to a client that does not read to be abandoned")
}
