package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/gorilla/websocket"
	"github.com/sourcegraph/jsonrpc2"
	wsstream "github.com/sourcegraph/jsonrpc2/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testToken = "s3cret-t0ken-for-tests"

// wait bounds every wait in these tests; nothing should take this long.
const wait = 10 * time.Second

// testHandler implements a few methods whose behaviour the tests control.
type testHandler struct {
	opened   chan *Conn
	closed   chan int32 // in-flight Handle calls when Close ran
	started  chan string
	release  chan struct{}
	inflight atomic.Int32
}

func newTestHandler() *testHandler {
	return &testHandler{
		opened:  make(chan *Conn, 16),
		closed:  make(chan int32, 16),
		started: make(chan string, 64),
		release: make(chan struct{}),
	}
}

// Inline answers the cheap methods on the reading goroutine, as cdevd's
// handler does with its lookups; the others run on goroutines of their own.
func (h *testHandler) Inline(_ *Conn, method string) bool {
	return method == "echo" || method == "panic" || method == "burst" || method == "deep"
}

func (h *testHandler) Open(c *Conn) { h.opened <- c }

func (h *testHandler) Close(*Conn) { h.closed <- h.inflight.Load() }

func (h *testHandler) Handle(ctx context.Context, c *Conn, method string, params json.RawMessage) (any, error) {
	h.inflight.Add(1)
	defer h.inflight.Add(-1)
	switch method {
	case "echo":
		if params == nil {
			return nil, nil
		}
		return params, nil
	case "block": // until released or the connection ends
		h.started <- method
		select {
		case <-h.release:
			return "released", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "hold": // until the connection ends, and then until released
		h.started <- method
		<-ctx.Done()
		h.started <- "hold cancelled"
		<-h.release
		return nil, ctx.Err()
	case "note":
		h.started <- method
		return nil, errors.New("a notification's error is never sent")
	case "fail":
		return nil, fmt.Errorf("looking up the session: %w", rpc.SessionNotFound("s1"))
	case "burst": // queues n numbered notifications, then replies n
		var p struct{ N int }
		_ = json.Unmarshal(params, &p)
		for i := range p.N {
			c.Notify("event/n", map[string]int{"i": i})
		}
		return p.N, nil
	case "then": // replies, then sends 3 notifications more than the queue holds
		return followup{c}, nil
	case "panic":
		panic("boom")
	case "deep": // uses about 256 KiB of stack
		return deep(256), nil
	case "bad result":
		return make(chan int), nil
	case "bad data":
		return nil, &rpc.Error{Code: rpc.CodeSessionBusy, Message: "session busy", Data: make(chan int)}
	}
	return nil, &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "method not found"}
}

// deep recurses n times with a 1 KiB frame each, so that the goroutine
// running it grows its stack.
//
//go:noinline
func deep(n int) int {
	var frame [1024]byte
	frame[n%len(frame)] = byte(n)
	if n == 0 {
		return int(frame[0])
	}
	return deep(n-1) + int(frame[n%len(frame)])
}

// await receives from ch or fails the test after wait.
func await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

type testServer struct {
	*Server
	h    *testHandler
	addr string // host:port
	base string // http://host:port
	url  string // ws://…/ws
}

// startServer runs a Server with Serve on loopback, as the daemon does; it
// is shut down when the test ends.
func startServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	h := newTestHandler()
	s := New(cfg, h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := await(t, served, "Serve to return"); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	addr := ln.Addr().String()
	return &testServer{Server: s, h: h, addr: addr, base: "http://" + addr, url: "ws://" + addr + "/ws"}
}

func bearer(tok string) http.Header {
	return http.Header{"Authorization": {"Bearer " + tok}}
}

// dial opens a WebSocket with the given headers and subprotocols.
func (s *testServer) dial(t testing.TB, url string, hdr http.Header, protos ...string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: protos, HandshakeTimeout: wait}
	ws, resp, err := d.Dial(url, hdr)
	if resp != nil {
		resp.Body.Close()
	}
	if err == nil {
		t.Cleanup(func() { ws.Close() })
	}
	return ws, resp, err
}

// rawConn dials with the token and returns the client and the server's Conn.
func (s *testServer) rawConn(t testing.TB) (*websocket.Conn, *Conn) {
	t.Helper()
	ws, _, err := s.dial(t, s.url, bearer(testToken))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return ws, await(t, s.h.opened, "Open")
}

// client is a sourcegraph/jsonrpc2 client whose notifications arrive on notes.
type client struct {
	*jsonrpc2.Conn
	notes chan *jsonrpc2.Request
}

func (c *client) Handle(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) {
	if r.Notif {
		c.notes <- r
	}
}

type testLogger struct{ t testing.TB }

func (l testLogger) Printf(format string, v ...any) { l.t.Logf(format, v...) }

func (s *testServer) client(t testing.TB) (*client, *Conn) {
	t.Helper()
	ws, sc := s.rawConn(t)
	c := &client{notes: make(chan *jsonrpc2.Request, 256)}
	c.Conn = jsonrpc2.NewConn(context.Background(), wsstream.NewObjectStream(ws), c, jsonrpc2.SetLogger(testLogger{t}))
	t.Cleanup(func() {
		c.Close()
		<-c.DisconnectNotify()
	})
	return c, sc
}

// call makes a request with the jsonrpc2 client and a deadline.
func (c *client) call(t testing.TB, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return c.Call(ctx, method, params, result)
}

// roundTrip sends one text frame and returns the next frame received.
func roundTrip(t testing.TB, ws *websocket.Conn, frame string) []byte {
	t.Helper()
	if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		t.Fatalf("write: %v", err)
	}
	return readFrame(t, ws)
}

func readFrame(t testing.TB, ws *websocket.Conn) []byte {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	_, msg, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return msg
}

// wireResponse is a response as a client decodes it, id kept raw.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpc.Error      `json:"error"`
}

func decodeResponse(t testing.TB, msg []byte) wireResponse {
	t.Helper()
	var r wireResponse
	if err := json.Unmarshal(msg, &r); err != nil {
		t.Fatalf("response %s: %v", msg, err)
	}
	if r.JSONRPC != "2.0" {
		t.Fatalf("response %s: jsonrpc is not 2.0", msg)
	}
	return r
}

// closeCode reads until the connection ends and returns the close frame's code.
func closeCode(t testing.TB, ws *websocket.Conn) (int, string) {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("connection ended without a close frame: %v", err)
			}
			return ce.Code, ce.Text
		}
	}
}

// followup is a result with more to send after its reply, paced by the
// client: more than the send queue holds.
type followup struct{ c *Conn }

func (f followup) MarshalJSON() ([]byte, error) { return []byte(`"first"`), nil }

func (f followup) AfterReply() {
	go func() {
		for i := range f.c.send.limit + 3 {
			msg := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"event/n","params":{"i":%d}}`, i))
			if f.c.SendEventWait(context.Background(), "event/n", msg) != nil {
				return
			}
		}
	}()
}
