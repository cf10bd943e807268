package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// connStacks returns the stacks of the goroutines running a Conn method,
// or started by one, read from every goroutine's stack.
func connStacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var stacks []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "cdevd/transport.(*Conn)") {
			stacks = append(stacks, g)
		}
	}
	return stacks
}

// handedOverMark is in the stack of a reader the first reader handed over to.
const handedOverMark = "created by github.com/cdevd/cdevd/transport.(*Conn).handle"

// connGoroutines counts connStacks, and how many of them are readers the
// first reader handed over to.
func connGoroutines() (total, handedOver int) {
	stacks := connStacks()
	for _, g := range stacks {
		if strings.Contains(g, handedOverMark) {
			handedOver++
		}
	}
	return len(stacks), handedOver
}

// An idle connection costs one goroutine, its reader: no writer waits for
// something to send, and replies written directly start none.
func TestIdleConnHasOnlyItsReader(t *testing.T) {
	s := startServer(t, Config{})
	const n = 10
	for i := range n {
		ws, _ := s.rawConn(t)
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":[%d]}`, i, i)
		if resp := decodeResponse(t, roundTrip(t, ws, frame)); resp.Error != nil {
			t.Fatalf("echo: %+v", resp.Error)
		}
	}
	if got, handedOver := settledConnGoroutines(n); got != n || handedOver != n {
		t.Errorf("%d idle connections run %d goroutines, %d of them handed-over readers; want %d readers only", n, got, handedOver, n)
	}
}

// settledConnGoroutines returns connGoroutines once the want connections
// have each handed over to their next reader and run nothing else, or what
// it is after wait. The count alone can be want too early: the client has
// its reply once the bytes are sent, and the first reader may still be
// returning from that write, not yet handed over (seen in CI).
func settledConnGoroutines(want int) (total, handedOver int) {
	deadline := time.Now().Add(wait)
	for {
		total, handedOver = connGoroutines()
		if total == want && handedOver == want || time.Now().After(deadline) {
			return total, handedOver
		}
		runtime.Gosched()
	}
}

// A reply follows what was queued before it, even when it could be written
// at once: the notifications a method queued come first, in order.
func TestReplyFollowsQueuedEvents(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)
	const events = 300
	for round := range 3 {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"burst","params":{"n":%d}}`, round, events)
		if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		for i := range events {
			var ev struct {
				Method string
				Params struct{ I int }
			}
			if err := json.Unmarshal(readFrame(t, ws), &ev); err != nil || ev.Method != "event/n" || ev.Params.I != i {
				t.Fatalf("round %d frame %d: %+v, %v; want event %d", round, i, ev, err, i)
			}
		}
		if resp := decodeResponse(t, readFrame(t, ws)); resp.Error != nil || string(resp.Result) != fmt.Sprint(events) {
			t.Fatalf("round %d: reply %+v after the events", round, resp)
		}
	}
}

// Replies written directly and events sent from another goroutine share
// one socket: every frame arrives whole, events in order, every request
// answered once. (Two writers at once would also trip the race detector.)
func TestDirectRepliesAndEventsShareTheSocket(t *testing.T) {
	s := startServer(t, Config{})
	ws, sc := s.rawConn(t)
	const events, calls = 2000, 200

	var sender sync.WaitGroup
	sender.Go(func() {
		for i := range events {
			// Paced by the client, which reads at its own speed.
			msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"event/n","params":{"i":%d}}`, i)
			if err := sc.SendEventWait(context.Background(), "event/n", msg); err != nil {
				t.Errorf("event %d: %v", i, err)
				return
			}
		}
	})
	var writer sync.WaitGroup
	writer.Go(func() {
		for i := range calls {
			frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":[%d]}`, i, i)
			if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
				t.Errorf("write: %v", err)
				return
			}
		}
	})
	nextEvent, replies := 0, map[string]bool{}
	for nextEvent < events || len(replies) < calls {
		msg := readFrame(t, ws)
		var f struct {
			ID     json.RawMessage
			Method string
			Params struct{ I int }
			Result json.RawMessage
		}
		if err := json.Unmarshal(msg, &f); err != nil {
			t.Fatalf("frame %q: %v", msg, err)
		}
		switch {
		case f.Method == "event/n":
			if f.Params.I != nextEvent {
				t.Fatalf("event %d, want %d", f.Params.I, nextEvent)
			}
			nextEvent++
		case f.ID != nil:
			if want := "[" + string(f.ID) + "]"; string(f.Result) != want || replies[string(f.ID)] {
				t.Fatalf("reply %s: result %s (want %s), seen before: %v", f.ID, f.Result, want, replies[string(f.ID)])
			}
			replies[string(f.ID)] = true
		default:
			t.Fatalf("unexpected frame %s", msg)
		}
	}
	sender.Wait()
	writer.Wait()
}
