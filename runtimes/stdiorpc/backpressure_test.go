package stdiorpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// flood sends n notifications of about size bytes each from its own
// goroutine, as a fast agent prints; sent counts the lines written (a
// write returns once the peer has read the line: the pipe holds nothing).
func flood(f *fake, n, size int, then string) (sent *atomic.Int64, done <-chan struct{}) {
	sent = new(atomic.Int64)
	ch := make(chan struct{})
	pad := strings.Repeat("x", size)
	go func() {
		defer close(ch)
		for i := range n {
			if _, err := fmt.Fprintf(f.out, `{"method":"chunk","params":{"n":%d,"text":%q}}`+"\n", i, pad); err != nil {
				return
			}
			sent.Add(1)
		}
		if then != "" {
			_, _ = fmt.Fprintln(f.out, then)
		}
	}()
	return sent, ch
}

// await waits until cond holds. The queue has no event to wait on, and
// adding one for tests would cost the hot path: it is polled, every
// millisecond, up to the deadline that fails the test.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A handler that falls behind stops the reader once MaxQueued bytes wait:
// the agent blocks on its pipe instead of cdevd queueing its whole output.
// Nothing is lost or reordered once the handler catches up.
func TestFloodIsBackPressured(t *testing.T) {
	const line, maxQueued, n = 16 << 10, 128 << 10, 200
	gate := make(chan struct{})
	var got []int
	all := make(chan struct{})
	h := Handlers{OnNotification: func(method string, params json.RawMessage) {
		<-gate
		var p struct{ N int }
		_ = json.Unmarshal(params, &p)
		got = append(got, p.N)
		if len(got) == n {
			close(all)
		}
	}}
	p, f, _ := start(t, h, Options{MaxQueued: maxQueued})
	sent, done := flood(f, n, line, "")
	await(t, "queue full", func() bool { return p.Queue().Bytes > maxQueued-2*line })
	// The reader holds one more line, its buffer a few: no further.
	if s := sent.Load(); s > maxQueued/line+8 {
		t.Fatalf("the agent wrote %d lines while cdevd held a full queue", s)
	}
	close(gate)
	select {
	case <-all:
	case <-time.After(waitFor):
		t.Fatalf("handled %d of %d", len(got), n)
	}
	<-done
	for i, v := range got {
		if v != i {
			t.Fatalf("message %d is %d: order lost", i, v)
		}
	}
	await(t, "room given back", func() bool { return p.Queue().Bytes == 0 })
	if q := p.Queue(); q.Peak > maxQueued {
		t.Fatalf("queue %+v: peak over %d", q, maxQueued)
	}
}

// The bound must not deadlock a handler that Calls: its reply comes after
// lines that no longer fit, and only the reader can read it.
func TestHandlerCallCompletesPastAFullQueue(t *testing.T) {
	var p *Peer
	backErr := make(chan error, 1)
	var handled atomic.Int64
	h := Handlers{OnNotification: func(method string, params json.RawMessage) {
		if method == "needs/call" {
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			backErr <- p.Call(ctx, "back", nil, nil)
		}
		handled.Add(1)
	}}
	p, f, _ := start(t, h, Options{MaxQueued: 4 << 10})
	f.send(`{"method":"needs/call"}`)
	back := f.recv()
	// 64 KiB of notifications, then the reply, while the handler waits.
	_, done := flood(f, 64, 1<<10, fmt.Sprintf(`{"id":%s,"result":{}}`, back["id"]))
	if err := awaitErr(t, backErr); err != nil {
		t.Fatalf("the handler's Call: %v", err)
	}
	<-done
	await(t, "all handled", func() bool { return handled.Load() == 65 })
}

// Ordered replies (ACP): the prompt's reply and a permission request that
// come behind a flood still get through, in order, at the handler's pace,
// and the request's answer reaches the agent.
func TestOrderedRepliesAndRequestsFlowBehindAFlood(t *testing.T) {
	var mu sync.Mutex
	var order []string
	h := Handlers{
		OnNotification: func(string, json.RawMessage) {},
		OnRequest: func(r *Request) {
			mu.Lock()
			order = append(order, "request")
			mu.Unlock()
			go func() { _ = r.Reply(map[string]string{"outcome": "allow"}) }()
		},
	}
	p, f, _ := start(t, h, Options{MaxQueued: 8 << 10, OrderedReplies: true})
	pending := goCall(p, context.Background(), "session/prompt", nil, nil)
	prompt := f.recv()
	_, done := flood(f, 100, 1<<10, `{"jsonrpc":"2.0","id":"perm-1","method":"session/request_permission","params":{}}`)
	answer := f.recv()
	if string(answer["id"]) != `"perm-1"` || !strings.Contains(string(answer["result"]), "allow") {
		t.Fatalf("answer to the permission request = %v", answer)
	}
	<-done
	f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, prompt["id"]))
	if err := awaitErr(t, pending); err != nil {
		t.Fatalf("prompt reply behind the flood: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 1 {
		t.Fatalf("requests handled: %v", order)
	}
}

// Discard drops the backlog and everything after it, and keeps reading, so
// an agent being stopped is never blocked on its pipe by cdevd.
func TestDiscardDropsTheBacklog(t *testing.T) {
	gate := make(chan struct{})
	var handled atomic.Int64
	h := Handlers{OnNotification: func(string, json.RawMessage) {
		<-gate
		handled.Add(1)
	}}
	p, f, _ := start(t, h, Options{MaxQueued: 64 << 10})
	_, done := flood(f, 500, 4<<10, "")
	await(t, "queue full", func() bool { return p.Queue().Bytes > 32<<10 })
	p.Discard()
	close(gate)
	select {
	case <-done: // every line read, none queued
	case <-time.After(waitFor):
		t.Fatal("the agent stays blocked on its pipe after Discard")
	}
	if q := p.Queue(); q.Bytes != 0 {
		t.Fatalf("queue after Discard: %+v", q)
	}
	if n := handled.Load(); n > 1 {
		t.Fatalf("%d discarded messages were handled", n)
	}
}
