package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
	"github.com/gorilla/websocket"
)

func TestFrameOverLimitCloses1009(t *testing.T) {
	s := startServer(t, Config{MaxFrameBytes: 1024})
	ws, _ := s.rawConn(t)

	ok := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("a", 900) + `"]}`
	if resp := decodeResponse(t, roundTrip(t, ws, ok)); resp.Error != nil {
		t.Fatalf("a frame under the limit: %+v", resp.Error)
	}
	big := `{"jsonrpc":"2.0","id":2,"method":"echo","params":["` + strings.Repeat("a", 4096) + `"]}`
	if err := ws.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if code, _ := closeCode(t, ws); code != websocket.CloseMessageTooBig {
		t.Errorf("close code %d, want 1009", code)
	}
	ws.Close()
	if inflight := await(t, s.h.closed, "Close"); inflight != 0 {
		t.Errorf("Close ran with %d requests in flight", inflight)
	}
}

func TestSlowClientCutOff(t *testing.T) {
	s := startServer(t, Config{SendQueue: 8})
	slowWS, slow := s.rawConn(t)
	fast, fastConn := s.client(t)

	// The slow client never reads: the socket buffers fill, then its queue.
	event := []byte(`{"jsonrpc":"2.0","method":"event/flood","params":{"text":"` + strings.Repeat("x", 4096) + `"}}`)
	sent := 0
	for slow.SendEvent("event/flood", event) {
		sent++
		if sent > 1_000_000 {
			t.Fatal("the send queue never filled")
		}
	}
	await(t, slow.Done(), "the slow client to be cut off")

	if !fastConn.Notify("event/still_here", map[string]int{"n": 1}) {
		t.Fatal("Notify to the other client failed")
	}
	if n := await(t, fast.notes, "a notification on the other client"); n.Method != "event/still_here" {
		t.Errorf("other client got %s", n.Method)
	}
	if err := fast.call(t, "echo", nil, nil); err != nil {
		t.Errorf("other client: %v", err)
	}

	code, text := closeCode(t, slowWS)
	if code != websocket.CloseTryAgainLater || text != "slow client; reconnect with since_seq" {
		t.Errorf("slow client closed with %d %q, want 1013", code, text)
	}
	if slow.Notify("event/late", nil) {
		t.Error("Notify on a closed connection reported success")
	}
	if _, body := get(t, s.base+"/metrics", bearer(testToken)); !strings.Contains(body, "cdevd_slow_client_disconnects_total 1\n") {
		t.Error("slow client disconnect not counted")
	}
}

func TestHeartbeat(t *testing.T) {
	s := startServer(t, Config{HeartbeatInterval: 20 * time.Millisecond})
	c, _ := s.client(t)
	for want := int64(1); want <= 2; want++ {
		n := await(t, c.notes, "a heartbeat")
		if n.Method != "event/heartbeat" || n.Params == nil {
			t.Fatalf("got %s, want event/heartbeat", n.Method)
		}
		var hb rpc.HeartbeatEvent
		if err := json.Unmarshal(*n.Params, &hb); err != nil {
			t.Fatal(err)
		}
		if hb.Sequence != want {
			t.Errorf("sequence %d, want %d", hb.Sequence, want)
		}
		if _, err := time.Parse(time.RFC3339, hb.ServerTime); err != nil {
			t.Errorf("server_time %q: %v", hb.ServerTime, err)
		}
		if hb.UptimeSeconds < 0 {
			t.Errorf("uptime_seconds %d", hb.UptimeSeconds)
		}
	}
}

func TestOptOut(t *testing.T) {
	s := startServer(t, Config{})
	c, sc := s.client(t)
	sc.SetOptOut([]string{"event/message_delta"})
	shared := []byte(`{"jsonrpc":"2.0","method":"event/message_delta","params":{}}`)
	if !sc.Notify("event/message_delta", map[string]string{"text": "hi"}) || !sc.SendEvent("event/message_delta", shared) {
		t.Fatal("an opted-out notification reported a failure")
	}
	sc.Notify("event/claude_message", map[string]string{"id": "m1"})
	// The queue is FIFO: had the opted-out ones been sent, they would come first.
	if n := await(t, c.notes, "a notification"); n.Method != "event/claude_message" {
		t.Errorf("first notification %s, want event/claude_message", n.Method)
	}
}

func TestShutdown(t *testing.T) {
	s := startServer(t, Config{})
	a, _ := s.rawConn(t)
	b, _ := s.rawConn(t)
	if err := a.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`)); err != nil {
		t.Fatal(err)
	}
	await(t, s.h.started, "a request in flight")

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	shutdown := make(chan error, 1)
	go func() { shutdown <- s.Shutdown(ctx) }()
	for _, ws := range []*websocket.Conn{a, b} {
		if code, text := closeCode(t, ws); code != websocket.CloseGoingAway || text != "server shutting down" {
			t.Errorf("closed with %d %q, want 1001 server shutting down", code, text)
		}
	}
	if err := await(t, shutdown, "Shutdown"); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for range 2 {
		await(t, s.h.closed, "Close")
	}
	if n := s.Conns(); n != 0 {
		t.Errorf("Conns() = %d after Shutdown", n)
	}
	if _, resp, err := s.dial(t, s.url, bearer(testToken)); err == nil || resp != nil {
		t.Errorf("dial after Shutdown: %v, want the listener closed", resp)
	}
	// Served by another http.Server, an upgrade is refused.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/ws", nil)
	req.Header = bearer(testToken)
	req.Host = "127.0.0.1"
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("upgrade after Shutdown: %d, want 503", rec.Code)
	}
}

func TestCloseWaitsForHandlers(t *testing.T) {
	s := startServer(t, Config{})
	ws, sc := s.rawConn(t)
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)); err != nil {
		t.Fatal(err)
	}
	await(t, s.h.started, "hold to start")
	if s.Conns() != 1 {
		t.Fatalf("Conns() = %d, want 1", s.Conns())
	}

	ws.Close()
	await(t, sc.Done(), "the connection to end")
	if sc.Context().Err() == nil {
		t.Fatal("Context not cancelled with the connection")
	}
	await(t, s.h.started, "Handle's ctx to be cancelled")
	close(s.h.release)
	if inflight := await(t, s.h.closed, "Close"); inflight != 0 {
		t.Errorf("Close ran while %d Handle calls were running", inflight)
	}
}

func TestPeerWithoutPongsDropped(t *testing.T) {
	s := startServer(t, Config{PingInterval: 20 * time.Millisecond})
	// This client never reads, so it never answers the pings.
	_, sc := s.rawConn(t)
	await(t, sc.Done(), "the silent peer to be dropped")
	if inflight := await(t, s.h.closed, "Close"); inflight != 0 {
		t.Errorf("Close ran with %d requests in flight", inflight)
	}
}

func TestBusyPeerWithoutPongsKept(t *testing.T) {
	// A peer whose pongs are late (a client on a loaded machine, or one
	// whose library answers pings lazily) but which keeps sending requests
	// is alive: any frame it sends counts, not only pongs. The interval
	// leaves the test's own requests (every half interval) room on a loaded
	// machine: at 20 ms, a 40 ms hiccup of this goroutine failed it.
	const ping = 100 * time.Millisecond
	s := startServer(t, Config{PingInterval: ping})
	ws, _ := s.rawConn(t)
	ws.SetPingHandler(func(string) error { return nil }) // never pongs
	tick := time.NewTicker(ping / 2)
	defer tick.Stop()
	for i := range 20 { // 10 ping intervals: five times the 2-interval limit
		<-tick.C
		if got := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)); got.Error != nil {
			t.Fatalf("request %d: %+v", i, got.Error)
		}
	}
}

func TestCloseFromServerSide(t *testing.T) {
	s := startServer(t, Config{})
	ws, sc := s.rawConn(t)
	long := strings.Repeat("é", 100) // 200 bytes: more than a close frame holds
	sc.Close(4000, long)
	sc.Close(4001, "second call ignored")
	code, text := closeCode(t, ws)
	if code != 4000 || !strings.HasPrefix(long, text) || len(text) < 120 || len(text) > 123 {
		t.Errorf("closed with %d %q (%d bytes), want 4000 and the text cut to 123 bytes", code, text, len(text))
	}
	if !utf8.ValidString(text) {
		t.Errorf("close text %q is not valid UTF-8", text)
	}
}

func TestConnIDsUnique(t *testing.T) {
	s := startServer(t, Config{})
	_, a := s.rawConn(t)
	_, b := s.rawConn(t)
	if a.ID() == "" || a.ID() == b.ID() {
		t.Errorf("ids %q and %q", a.ID(), b.ID())
	}
}

// A reply's follow-up arrives after the reply, and SendEventWait paces a
// stream longer than the send queue instead of cutting the client off.
func TestAfterReplyAndPacedSend(t *testing.T) {
	s := startServer(t, Config{SendQueue: 4})
	ws, _ := s.rawConn(t)
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"then"}`)); err != nil {
		t.Fatal(err)
	}
	first := decodeResponse(t, readFrame(t, ws))
	if string(first.Result) != `"first"` {
		t.Fatalf("first frame = %+v, want the reply", first)
	}
	for i := range 4 + 3 {
		var n struct {
			Method string          `json:"method"`
			Params struct{ I int } `json:"params"`
		}
		if err := json.Unmarshal(readFrame(t, ws), &n); err != nil || n.Method != "event/n" || n.Params.I != i {
			t.Fatalf("notification %d = %+v, %v", i, n, err)
		}
	}
}

// With nobody draining the queue, SendEventWait waits (here: until its
// context ends) where a plain send would cut the client off.
func TestSendEventWaitWaitsInsteadOfCutting(t *testing.T) {
	s := New(Config{Token: testToken, SendQueue: 2}, newTestHandler())
	c := newConn(s, nil) // no write loop: the queue only fills
	msg := []byte(`{}`)
	for range 2 {
		if err := c.SendEventWait(context.Background(), "event/x", msg); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.SendEventWait(ctx, "event/x", msg); !errors.Is(err, context.Canceled) {
		t.Fatalf("full queue: %v, want to wait until the context ends", err)
	}
	if c.ctx.Err() != nil {
		t.Fatal("waiting for room must not close the connection")
	}
	if c.SendEvent("event/x", msg) || c.ctx.Err() == nil {
		t.Fatal("a plain send to a full queue must cut the client off")
	}
	if err := c.SendEventWait(context.Background(), "event/x", msg); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}
