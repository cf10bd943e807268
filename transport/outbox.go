package transport

import (
	"context"
	"sync"
)

// outbox is a connection's bounded send queue, and the right to write data
// frames. It grows with use instead of reserving its whole bound up front,
// and keeps no writer goroutine while there is nothing to write: most
// connections sit idle most of the time, and a channel of the bound's size
// or a parked goroutine would cost every one of them kilobytes.
//
// At most one goroutine writes at a time: the one holding the claim
// (writing). A push that finds no writer starts one (start), which writes
// until the queue is empty and then gives the claim back; a reply may be
// written directly by whoever claims an empty, idle queue (claim).
type outbox struct {
	limit int
	// start runs a writer in a new goroutine; nil keeps messages queued
	// (a Conn without a socket, in tests of the JSON-RPC layer).
	start func()

	mu      sync.Mutex
	items   [][]byte // FIFO: items[head:] are queued
	head    int
	writing bool // a writer holds the claim
	closed  bool // nothing more is queued or written
	// writers counts writer goroutines; added to under mu while not
	// closed, so that close can wait for them all.
	writers sync.WaitGroup

	room chan struct{} // holds a token after the writer took an item (for waiting senders)
}

func newOutbox(limit int) *outbox {
	return &outbox{limit: limit, room: make(chan struct{}, 1)}
}

// push queues msg unless the queue is full (or closed).
func (o *outbox) push(msg []byte) bool { return o.pushUnder(msg, o.limit) }

// pushUnder queues msg unless max messages are already queued, and starts
// a writer if none holds the claim.
func (o *outbox) pushUnder(msg []byte, max int) bool {
	o.mu.Lock()
	if o.closed || len(o.items)-o.head >= max {
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
	if len(o.items) == cap(o.items) && cap(o.items) < queueChunk && o.limit >= queueChunk {
		a := queueArrays.Get().(*queueArray)
		o.items = append(a[:0], o.items...)
	}
	o.items = append(o.items, msg)
	start := o.startLocked()
	o.mu.Unlock()
	if start {
		go o.start()
	}
	return true
}

// A queue that holds messages takes its backing array from queueArrays,
// and gives it back once drained: a writer drains its queue many times in
// one burst, and growing a fresh array from nothing each time was half the
// cost of queueing an event in the fan-out profile. (A queue bounded below
// queueChunk grows its own: it stays small.)
const queueChunk = 256

type queueArray [queueChunk][]byte

var queueArrays = sync.Pool{New: func() any { return new(queueArray) }}

// pooled reports whether the backing array came from queueArrays (a queue
// outgrowing one gets a larger array from append, never of this size).
func (o *outbox) pooled() bool { return cap(o.items) == queueChunk && o.limit >= queueChunk }

// startLocked takes the claim for a new writer goroutine if nobody holds
// it; the caller then runs o.start.
func (o *outbox) startLocked() bool {
	if o.writing || o.start == nil {
		return false
	}
	o.writing = true
	o.writers.Add(1)
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
	msg, ok := o.popLocked()
	o.mu.Unlock()
	if ok {
		signal(o.room)
	}
	return msg, ok
}

func (o *outbox) popLocked() ([]byte, bool) {
	if o.head == len(o.items) {
		return nil, false
	}
	msg := o.items[o.head]
	o.items[o.head] = nil
	o.head++
	if o.head == len(o.items) {
		// Drained: start over at the front, and give back a large backing
		// array so that one burst does not pin its memory for good.
		o.head = 0
		switch {
		case o.pooled():
			queueArrays.Put((*queueArray)(o.items[:queueChunk])) // popped entries are nil already
			o.items = nil
		case cap(o.items) > 64:
			o.items = nil
		default:
			o.items = o.items[:0]
		}
	}
	return msg, true
}

// nextBatch is the writer's pop: it appends to batch the oldest queued
// messages, at least one and then while they stay under maxBytes, so that
// the writer can put them on the wire with one write. It returns false
// once the queue is empty (or closed), in which case the writer has given
// back the claim and must stop.
func (o *outbox) nextBatch(batch [][]byte, maxBytes int) ([][]byte, bool) {
	o.mu.Lock()
	if o.closed || o.head == len(o.items) {
		o.writing = false
		o.mu.Unlock()
		return batch, false
	}
	size := 0
	for o.head != len(o.items) && (size == 0 || size+len(o.items[o.head]) <= maxBytes) {
		msg, _ := o.popLocked()
		size += len(msg)
		batch = append(batch, msg)
	}
	o.mu.Unlock()
	signal(o.room)
	return batch, true
}

// claim takes the right to write at once, for a reply written on the
// caller's goroutine. It is refused unless the queue is empty and no
// writer runs: what was queued before must go out first.
func (o *outbox) claim() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.writing || o.head != len(o.items) || o.start == nil {
		return false
	}
	o.writing = true
	return true
}

// unclaim gives back a claim taken with claim; what was queued meanwhile
// gets a writer goroutine.
func (o *outbox) unclaim() {
	o.mu.Lock()
	o.writing = false
	start := !o.closed && o.head != len(o.items) && o.startLocked()
	o.mu.Unlock()
	if start {
		go o.start()
	}
}

// close drops what is queued, refuses what comes, and waits until no
// writer goroutine runs. A direct writer (claim) may still be finishing
// its frame; it writes nothing more.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	clear(o.items)
	o.items, o.head = nil, 0
	o.mu.Unlock()
	o.writers.Wait()
}

// signal leaves a token in a one-slot channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
