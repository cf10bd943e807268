package sessions

import (
	"encoding/json"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// Event is one numbered session event, marshaled once as a complete
// JSON-RPC notification and shared by every watcher and by the replay buffer.
type Event struct {
	Seq         int64
	Type        string // without the "event/" prefix
	SessionID   string
	WorkspaceID string
	At          time.Time
	Frame       []byte
	method      string // EventPrefix+Type, made once: Method runs for every watcher
}

// Method is the notification's method name.
func (e *Event) Method() string {
	if e.method != "" {
		return e.method
	}
	return rpc.EventPrefix + e.Type
}

// notification marshals a JSON-RPC notification.
func notification(method string, params any) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
	if err != nil {
		// Params are cdevd's own wire types; failing to marshal one is a bug.
		panic("sessions: marshal " + method + ": " + err.Error())
	}
	return b
}

// DefaultReplayBytes bounds the frames one session's replay buffer holds.
// The count bound alone let an agent that answered with 200 chunks of 1 MB
// keep 1 GB alive for ReplayAge after the turn. 16 MiB holds the whole of
// any real turn (a long answer is ~100 KB of text, sent twice: deltas and
// the closing message) many times over, so a client that reconnects within
// ReplayAge still gets a gapless replay; only a flood overruns it, and the
// late watcher is told so with gap:true, as when the count bound is passed.
// Eight live sessions per runtime then hold at most 128 MiB each runtime.
const DefaultReplayBytes = 16 << 20

// eventLog is a session's replay buffer: a ring of the most recent events.
// It keeps at least minEvents events or everything younger than minAge,
// whichever is more, up to maxEvents and maxBytes of frames so memory stays
// bounded (the newest event is kept whatever its size).
type eventLog struct {
	buf       []*Event // ring
	start     int      // index of the oldest event
	n         int
	bytes     int   // frame bytes held
	floor     int64 // seq of the newest event dropped (0: none yet)
	minEvents int
	minAge    time.Duration
	maxEvents int
	maxBytes  int
}

func newEventLog(minEvents, maxEvents, maxBytes int, minAge time.Duration) *eventLog {
	return &eventLog{minEvents: minEvents, maxEvents: maxEvents, maxBytes: maxBytes, minAge: minAge}
}

func (l *eventLog) at(i int) *Event { return l.buf[(l.start+i)%len(l.buf)] }

// add appends ev, first dropping the oldest events that are beyond both
// the count and age limits, or at maxEvents, or that would make the frames
// held exceed maxBytes. A dropped event raises the floor, so a watcher
// asking for it is told it has a gap.
func (l *eventLog) add(ev *Event) {
	size := len(ev.Frame)
	for l.n > 0 && (l.n >= l.maxEvents || l.bytes+size > l.maxBytes ||
		(l.n >= l.minEvents && ev.At.Sub(l.at(0).At) >= l.minAge)) {
		old := l.buf[l.start]
		l.floor = old.Seq
		l.bytes -= len(old.Frame)
		l.buf[l.start] = nil // let the frame be collected
		l.start = (l.start + 1) % len(l.buf)
		l.n--
	}
	if l.n == len(l.buf) {
		l.grow()
	}
	l.buf[(l.start+l.n)%len(l.buf)] = ev
	l.n++
	l.bytes += size
}

// heldBytes is the size of the frames the buffer holds.
func (l *eventLog) heldBytes() int { return l.bytes }

func (l *eventLog) grow() {
	size := max(2*len(l.buf), 64)
	size = min(size, l.maxEvents)
	nb := make([]*Event, size)
	for i := range l.n {
		nb[i] = l.at(i)
	}
	l.buf, l.start = nb, 0
}

// since returns the events after seq, and whether the buffer still reaches
// back that far (false: events were dropped, the caller has a gap).
func (l *eventLog) since(seq int64) ([]*Event, bool) {
	if seq < l.floor {
		return nil, false
	}
	if l.n == 0 {
		return nil, true
	}
	first := l.at(0).Seq
	if seq < first-1 {
		return nil, false
	}
	skip := int(seq - first + 1)
	out := make([]*Event, 0, max(l.n-skip, 0))
	for i := max(skip, 0); i < l.n; i++ {
		out = append(out, l.at(i))
	}
	return out, true
}

// release drops every event, and the memory that held them. A watcher
// asking for anything before now is told it has a gap.
func (l *eventLog) release() {
	if l.n > 0 {
		l.floor = l.at(l.n - 1).Seq
	}
	l.buf, l.start, l.n, l.bytes = nil, 0, 0, 0
}
