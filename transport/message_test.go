package transport

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// reportClose reads ws until it ends (answering pings meanwhile, as the
// library does while reading) and sends the close frame's code, or -1.
func reportClose(ws *websocket.Conn) <-chan int {
	closed := make(chan int, 1)
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				code := -1
				var ce *websocket.CloseError
				if errors.As(err, &ce) {
					code = ce.Code
				}
				closed <- code
				return
			}
		}
	}()
	return closed
}

// A message has a deadline of its own, from its first frame to its final
// one: a client that sends fragments slowly while it answers every ping
// (which keeps a connection alive) is closed with 1008 once it is past.
func TestUnfinishedMessageDeadline(t *testing.T) {
	const (
		ping       = 150 * time.Millisecond // a silent peer is dropped after 300 ms
		msgTimeout = 5 * ping
	)
	s := startServer(t, Config{PingInterval: ping, MessageTimeout: msgTimeout})
	// A write past the small buffer sends a frame: a fragment per tick.
	d := websocket.Dialer{HandshakeTimeout: wait, WriteBufferSize: 256}
	ws, _, err := d.Dial(s.url, bearer(testToken))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	await(t, s.h.opened, "Open")
	closed := reportClose(ws)

	w, err := ws.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["`)
	fragment := strings.Repeat("x", 300)
	tick := time.NewTicker(ping / 5)
	defer tick.Stop()
	giveUp := time.After(wait)
	for {
		select {
		case code := <-closed:
			if code != websocket.ClosePolicyViolation {
				t.Fatalf("closed with %d, want %d (message not completed in time)", code, websocket.ClosePolicyViolation)
			}
			if took := time.Since(start); took < msgTimeout {
				t.Fatalf("closed after %v, before the message's deadline (%v)", took, msgTimeout)
			}
			return
		case <-tick.C:
			_, _ = io.WriteString(w, fragment) // fails once the server has closed; closed then says why
		case <-giveUp:
			t.Fatalf("a message still unfinished after %v, its deadline %v: the connection is still open", wait, msgTimeout)
		}
	}
}

// The bytes of unfinished messages are bounded daemon-wide: past the
// budget, a connection that needs more is closed with 1013, and the others
// keep theirs and finish their messages.
func TestUnfinishedMessagesShareABudget(t *testing.T) {
	const (
		budget = 64 << 10
		conns  = 8
		// Each connection sends this much of a message, of which the
		// client's write buffer keeps up to 4 KiB unsent; the server
		// draws on the budget for all but unbudgetedBytes of what it
		// holds: at most budget/charge connections can hold theirs.
		partial   = 40 << 10
		charge    = partial - 4<<10 - unbudgetedBytes
		minClosed = conns - budget/charge
	)
	s := startServer(t, Config{MaxUnfinishedBytes: budget})
	type closeEvent struct{ conn, code int }
	closes := make(chan closeEvent, conns) // each connection the server closed
	writers := make([]io.WriteCloser, conns)
	replies := make([]chan []byte, conns)
	for i := range conns {
		ws, _ := s.rawConn(t)
		w, err := ws.NextWriter(websocket.TextMessage)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["`+strings.Repeat("x", partial))
		writers[i], replies[i] = w, make(chan []byte, 1)
		go func() {
			for {
				_, msg, err := ws.ReadMessage()
				if err != nil {
					code := -1
					var ce *websocket.CloseError
					if errors.As(err, &ce) {
						code = ce.Code
					}
					closes <- closeEvent{i, code}
					return
				}
				replies[i] <- msg
			}
		}()
	}

	closed := make(map[int]bool)
	overBudget := func(ev closeEvent) {
		if ev.code != websocket.CloseTryAgainLater {
			t.Fatalf("connection %d closed with %d, want %d", ev.conn, ev.code, websocket.CloseTryAgainLater)
		}
		closed[ev.conn] = true
	}
	for len(closed) < minClosed {
		overBudget(await(t, closes, "connections over the budget to be closed"))
	}
	if held := s.unfinished.held.Load(); held > budget {
		t.Fatalf("%d bytes of unfinished messages held, budget %d", held, budget)
	}

	// The others finish their messages and are answered (or were closed
	// for the budget meanwhile, before this looked).
	answered := 0
	for i, w := range writers {
		if closed[i] {
			continue
		}
		_, _ = io.WriteString(w, `"]}`)
		_ = w.Close()
		for !closed[i] {
			select {
			case msg := <-replies[i]:
				if resp := decodeResponse(t, msg); resp.Error != nil {
					t.Fatalf("connection %d: %+v", i, resp.Error)
				}
				answered++
				closed[i] = true // done with it
			case ev := <-closes:
				overBudget(ev)
			case <-time.After(wait):
				t.Fatalf("connection %d: no answer to its finished message", i)
			}
		}
	}
	if answered == 0 {
		t.Fatal("no connection kept its unfinished message within the budget")
	}
	if held := s.unfinished.held.Load(); held != 0 {
		t.Errorf("%d bytes still drawn from the budget with no message unfinished", held)
	}
}
