package bench

// An event's header (whether it ends the turn, its seq, its timestamp),
// read by the fan-out's readers from the frame without decoding it.

import (
	"bytes"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// eventHeader is what the bench reads of an event notification.
type eventHeader struct {
	last    bool // turn_completed: the turn's last event
	seq     int64
	created time.Time
	tsAt    int // where the timestamp's value starts in the frame
}

// header reads an event notification's header without decoding the frame.
// The header's fields come before the event's own (rpc.EventHeader is
// embedded first, and timestamp precedes seq in it), so the first match
// after "params" is the header's.
func header(msg []byte) (h eventHeader, ok bool) {
	method, rest, ok := stringAfter(msg, `"method":"`)
	if !ok || !bytes.HasPrefix(method, []byte(rpc.EventPrefix)) {
		return h, false
	}
	i := bytes.Index(rest, []byte(`"params":{`))
	if i < 0 {
		return h, false
	}
	rest = rest[i:]
	i = bytes.Index(rest, []byte(`"timestamp":"`))
	if i < 0 {
		return h, false
	}
	h.tsAt = len(msg) - len(rest) + i + len(`"timestamp":"`)
	h.last = string(method[len(rpc.EventPrefix):]) == rpc.EventTurnCompleted
	return h, h.readFrom(msg, nil)
}

// lastTime is the last timestamp parsed, and its text: the events of a
// burst are mostly made within the same millisecond.
type lastTime struct {
	text []byte
	t    time.Time
}

// readFrom reads the timestamp at h.tsAt and the seq after it; the
// timestamp is taken from last (when not nil) if it has the same text.
func (h *eventHeader) readFrom(msg []byte, last *lastTime) bool {
	rest := msg[h.tsAt:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return false
	}
	switch ts := rest[:j]; {
	case last != nil && len(last.text) > 0 && bytes.Equal(ts, last.text):
		h.created = last.t
	default:
		var ok bool
		if h.created, ok = parseTime(ts); !ok {
			return false
		}
		if last != nil {
			last.text, last.t = append(last.text[:0], ts...), h.created
		}
	}
	rest = rest[j+1:]
	// The seq follows at once, unless another field was put in between.
	const key = `"seq":`
	i := 1 // after the comma
	if !bytes.HasPrefix(rest[min(i, len(rest)):], []byte(key)) {
		if i = bytes.Index(rest, []byte(key)); i < 0 {
			return false
		}
	}
	digits := rest[i+len(key):]
	h.seq = 0
	n := 0
	for n < len(digits) && n < 19 && '0' <= digits[n] && digits[n] <= '9' {
		h.seq = h.seq*10 + int64(digits[n]-'0')
		n++
	}
	return n > 0
}

// headerCache reads headers like header, faster: the events of one session
// share everything before their timestamp (method, session, workspace,
// runtime), so when a frame begins with the bytes that preceded the last
// frame's timestamp, its own timestamp starts right after them, where
// header would have found it; otherwise header searches.
type headerCache struct {
	prefix []byte // the last frame's bytes before its timestamp
	last   bool   // and whether that frame was a turn_completed
	ts     lastTime
}

func (c *headerCache) header(msg []byte) (eventHeader, bool) {
	if len(c.prefix) > 0 && bytes.HasPrefix(msg, c.prefix) {
		h := eventHeader{last: c.last, tsAt: len(c.prefix)}
		return h, h.readFrom(msg, &c.ts)
	}
	h, ok := header(msg)
	if ok {
		c.prefix, c.last = append(c.prefix[:0], msg[:h.tsAt]...), h.last
	}
	return h, ok
}

// stringAfter finds key in msg and returns the JSON string value that
// follows it (key ends with its opening quote), and what follows that.
func stringAfter(msg []byte, key string) (val, rest []byte, ok bool) {
	i := bytes.Index(msg, []byte(key))
	if i < 0 {
		return nil, nil, false
	}
	rest = msg[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return nil, nil, false
	}
	return rest[:j], rest[j+1:], true
}

// parseTime reads the wire's timestamps (rpc.TimeLayout, fixed width) with
// a few digit conversions; anything else goes through time.Parse.
func parseTime(b []byte) (time.Time, bool) {
	if len(b) != len(rpc.TimeLayout) || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' ||
		b[16] != ':' || b[19] != '.' || b[23] != 'Z' {
		t, err := time.Parse(time.RFC3339Nano, string(b))
		return t, err == nil
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for _, c := range b[from:to] {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	var v [7]int
	for k, span := range [7][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}, {20, 23}} {
		var ok bool
		if v[k], ok = num(span[0], span[1]); !ok {
			return time.Time{}, false
		}
	}
	return time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*int(time.Millisecond), time.UTC), true
}
