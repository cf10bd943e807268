package stdiorpc

import (
	"encoding/json"
	"sync"
)

// DefaultMaxQueued bounds the bytes of messages read from the CLI and not
// yet handled. Without a bound, an agent that printed faster than cdevd
// handled its lines (200 chunks of 1 MB for one prompt) had its whole
// output queued in memory, and a stop waited for all of it to be handled.
// With it, the reader stops reading once the queue is full: the CLI blocks
// on its pipe write until the handlers catch up. 4 MiB is hundreds of
// ordinary messages (a streamed chunk is tens of bytes to a few KB), so a
// normal agent never waits; a line longer than this (up to MaxLine) is
// still taken, alone.
const DefaultMaxQueued = 4 << 20

// QueueStats is how much the peer holds of what the CLI sent.
type QueueStats struct {
	Bytes int // bytes of messages read and not yet handled
	Peak  int // the most Bytes has been
}

// inbox is the FIFO between the reader and the dispatcher, bounded by the
// bytes of the lines it holds: push waits for room. Messages count until
// their handler has returned, since the batch being handled is still held.
//
// One exception keeps it deadlock-free: without OrderedReplies a handler
// may Call, and the reply can only be read by the reader. While the
// dispatcher is in a handler and a Call waits (blocked), push does not wait:
// the queue may then overrun its bound until that reply is in. (A Call from
// another goroutine lifts the bound too while it waits; Codex's are short:
// turn/start and turn/interrupt answer at once.) With OrderedReplies the
// handlers must not wait for replies, and the prompt's Call waits for the
// whole turn, so the bound always holds.
type inbox struct {
	mu       sync.Mutex
	room     *sync.Cond // signalled when bytes drop or the rules change
	items    []queued
	bytes    int
	peak     int
	max      int
	closed   bool // the reader has stopped
	discard  bool // Discard: nothing more is queued or handled
	handling bool // the dispatcher is handling a batch
	waiting  int  // Calls blocked in Wait
	ordered  bool // OrderedReplies: waiting Calls do not lift the bound
	wake     chan struct{}
}

// queued is one message and the size of the line it came in.
type queued struct {
	msg  any
	size int
}

func newInbox(max int, ordered bool) *inbox {
	q := &inbox{max: max, ordered: ordered, wake: make(chan struct{}, 1)}
	q.room = sync.NewCond(&q.mu)
	return q
}

// push queues it, first waiting while the queue is full. A message that is
// alone in the queue is taken whatever its size. It reports false when the
// message was dropped (Discard).
func (q *inbox) push(it any, size int) bool {
	q.mu.Lock()
	for !q.discard && q.bytes > 0 && q.bytes+size > q.max && (q.ordered || !q.handling || q.waiting == 0) {
		q.room.Wait()
	}
	if q.discard {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, queued{it, size})
	q.bytes += size
	q.peak = max(q.peak, q.bytes)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// handled gives back the room of a message whose handler returned.
func (q *inbox) handled(size int) {
	q.mu.Lock()
	if !q.discard { // drop already gave all the room back
		q.bytes -= size
	}
	q.mu.Unlock()
	q.room.Signal() // only the reader waits for room
}

// blockedCall counts a Call that waits for its reply (+1, then -1).
func (q *inbox) blockedCall(delta int) {
	q.mu.Lock()
	q.waiting += delta
	q.mu.Unlock()
	q.room.Broadcast()
}

func (q *inbox) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// drop empties the queue and drops every later message.
func (q *inbox) drop() {
	q.mu.Lock()
	q.discard = true
	q.items = nil
	q.bytes = 0
	q.mu.Unlock()
	q.room.Broadcast()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *inbox) dropping() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.discard
}

func (q *inbox) stats() QueueStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return QueueStats{Bytes: q.bytes, Peak: q.peak}
}

// take waits for messages; open is false once the reader has stopped. The
// dispatcher counts as handling from take to take.
func (q *inbox) take() (batch []queued, open bool) {
	q.mu.Lock()
	q.handling = false
	q.mu.Unlock()
	q.room.Broadcast()
	for {
		q.mu.Lock()
		batch, q.items = q.items, nil
		closed := q.closed
		q.handling = len(batch) > 0
		q.mu.Unlock()
		if len(batch) > 0 || closed {
			return batch, !closed
		}
		<-q.wake
	}
}

type notification struct {
	method string
	params json.RawMessage
}
