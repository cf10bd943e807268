package transport

import (
	"context"
	"sync"
)

// outbox is a connection's bounded send queue. It grows with use instead
// of reserving its whole bound up front: most connections sit idle most of
// the time, and a channel of the bound's size would cost every one of them
// tens of kilobytes.
type outbox struct {
	limit int

	mu    sync.Mutex
	items [][]byte // FIFO: items[head:] are queued
	head  int

	ready chan struct{} // holds a token after a push (the writer then pops until empty)
	room  chan struct{} // holds a token after the writer took an item (for waiting senders)
}

func newOutbox(limit int) *outbox {
	return &outbox{limit: limit, ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// push queues msg unless the queue is full.
func (o *outbox) push(msg []byte) bool { return o.pushUnder(msg, o.limit) }

// pushUnder queues msg unless max messages are already queued.
func (o *outbox) pushUnder(msg []byte, max int) bool {
	o.mu.Lock()
	if len(o.items)-o.head >= max {
		o.mu.Unlock()
		return false
	}
	if len(o.items) == cap(o.items) && o.head > 0 {
		// Reuse the room of what was written rather than grow: under a
		// steady load the queue may never drain completely.
		n := copy(o.items, o.items[o.head:])
		clear(o.items[n:])
		o.items, o.head = o.items[:n], 0
	}
	o.items = append(o.items, msg)
	o.mu.Unlock()
	signal(o.ready)
	return true
}

// pushWait queues msg, waiting while the queue is three quarters full
// until done or ctx ends; it reports whether msg was queued. The quarter it
// leaves is for replies and live events: a long replay to a slow client
// must not fill the queue and get that client cut off by its next reply.
func (o *outbox) pushWait(ctx context.Context, done <-chan struct{}, msg []byte) bool {
	for !o.pushUnder(msg, max(o.limit-o.limit/4, 1)) {
		select {
		case <-o.room:
		case <-done:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// pop takes the oldest queued message, if any.
func (o *outbox) pop() ([]byte, bool) {
	o.mu.Lock()
	if o.head == len(o.items) {
		o.mu.Unlock()
		return nil, false
	}
	msg := o.items[o.head]
	o.items[o.head] = nil
	o.head++
	if o.head == len(o.items) {
		// Drained: start over at the front, and give back a large backing
		// array so that one burst does not pin its memory for good.
		o.head = 0
		if cap(o.items) > 64 {
			o.items = nil
		} else {
			o.items = o.items[:0]
		}
	}
	o.mu.Unlock()
	signal(o.room)
	return msg, true
}

// signal leaves a token in a one-slot channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
