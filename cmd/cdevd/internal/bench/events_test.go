package bench

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// header reads an event's seq and creation time as a full decode would,
// even when the event's own text spells the same field names, and tells
// turn_completed from the rest.
func TestHeaderReadsTheEventHeader(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678000000, time.UTC)
	text := `{"seq":7,"timestamp":"2020-01-01T00:00:00.000Z","method":"event/turn_completed","params":{}}`
	for _, tc := range []struct {
		typ  string
		ev   any
		last bool
	}{
		{rpc.EventMessageDelta, rpc.MessageDeltaEvent{Text: text}, false},
		{rpc.EventTurnCompleted, rpc.TurnCompletedEvent{StopReason: text}, true},
	} {
		eh := rpc.EventHeader{SessionID: `"seq":1`, WorkspaceID: "w", Timestamp: rpc.FormatTime(at), Seq: 42, Epoch: "e"}
		var params map[string]any
		raw, _ := json.Marshal(tc.ev)
		if err := json.Unmarshal(raw, &params); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"session_id", "workspace_id", "agent_type", "timestamp", "seq", "epoch"} {
			delete(params, k)
		}
		// The header's fields first, in rpc.EventHeader's order, as the
		// daemon writes them.
		hdr, _ := json.Marshal(eh)
		body, _ := json.Marshal(params)
		frame := []byte(`{"jsonrpc":"2.0","method":"` + rpc.EventPrefix + tc.typ + `","params":` +
			string(hdr[:len(hdr)-1]) + "," + string(body[1:]) + "}")
		if !json.Valid(frame) {
			t.Fatalf("bad test frame %s", frame)
		}
		h, ok := header(frame)
		if !ok || h.last != tc.last || h.seq != 42 || !h.created.Equal(at) {
			t.Errorf("%s: header = %+v %v, want %v 42 %v true", tc.typ, h, ok, tc.last, at)
		}
	}
	for _, notEvent := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"seq":1,"timestamp":"2026-01-02T03:04:05.000Z"}}`,
		`{"jsonrpc":"2.0","method":"event/message_delta","params":{"seq":1}}`,
		`{"jsonrpc":"2.0","method":"event/message_delta","params":{"timestamp":"2026-01-02T03:04:05.000Z"}}`,
		`{"jsonrpc":"2.0","method":"event/message_delta","params":{"timestamp":"yesterday","seq":1}}`,
		`{"jsonrpc":"2.0","method":"workspace/changed","params":{"timestamp":"2026-01-02T03:04:05.000Z","seq":1}}`,
	} {
		if _, ok := header([]byte(notEvent)); ok {
			t.Errorf("header(%s) ok, want not an event with a header", notEvent)
		}
	}
}

// parseTime reads the wire's fixed-width times as time.Parse does, and
// still reads other RFC 3339 times.
func TestParseTimeAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{
		"2026-01-02T03:04:05.678Z", "1999-12-31T23:59:59.999Z", "2026-11-23T00:00:00.000Z",
		"2026-01-02T03:04:05.678901234Z", "2026-01-02T03:04:05+02:00",
	} {
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := parseTime([]byte(s))
		if !ok || !got.Equal(want) {
			t.Errorf("parseTime(%s) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"2026-01-02T03:04:05.6x8Z", "", "2026-01-02"} {
		if _, ok := parseTime([]byte(s)); ok {
			t.Errorf("parseTime(%q) ok, want not a time", s)
		}
	}
}

// tally counts what a watcher missed, and what it got twice or out of
// order, against the seqs the watchers received together.
func TestTallyOnceAndInOrder(t *testing.T) {
	rec := func(cut bool, seqs ...int64) watchRec { return watchRec{seqs: seqs, cut: cut} }
	for _, tc := range []struct {
		name        string
		recs        []watchRec
		lost, again int
	}{
		{"all", []watchRec{rec(false, 3, 4, 5), rec(false, 3, 4, 5)}, 0, 0},
		{"gap", []watchRec{rec(false, 3, 4, 5), rec(false, 3, 5)}, 1, 0},
		{"late start", []watchRec{rec(false, 3, 4, 5), rec(false, 4, 5)}, 1, 0},
		{"cut off", []watchRec{rec(false, 3, 4, 5), rec(true, 3)}, 2, 0},
		{"twice", []watchRec{rec(false, 3, 4, 4, 5), rec(false, 3, 4, 5)}, 0, 1},
		{"swapped", []watchRec{rec(false, 3, 5, 4), rec(false, 3, 4, 5)}, 0, 1},
	} {
		lost, again := tally(tc.recs)
		if lost != tc.lost || again != tc.again {
			t.Errorf("%s: tally = lost %d again %d, want %d %d", tc.name, lost, again, tc.lost, tc.again)
		}
	}
}

// headerCache reads what header reads, frame after frame, whether a frame
// shares the previous one's beginning or not.
func TestHeaderCacheAgreesWithHeader(t *testing.T) {
	frame := func(method, session string, seq int, text string) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"event/%s","params":{"session_id":%q,"workspace_id":"w","agent_type":"scripted",`+
			`"timestamp":"2026-01-02T03:04:%02d.%03dZ","seq":%d,"epoch":"e","text":%q}}`, method, session, seq%60, seq%1000, seq, text)
	}
	frames := [][]byte{
		frame("message_delta", "s1", 1, "x"),
		frame("message_delta", "s1", 2, `"timestamp":"2020-01-01T00:00:00.000Z","seq":7`),
		frame("message_delta", "s1", 3, "x"),
		frame("turn_completed", "s1", 4, ""),
		frame("message_delta", "s10", 5, "x"), // begins like s1's, then differs
		frame("message_delta", "s1", 6, "x"),
		[]byte(`{"jsonrpc":"2.0","method":"event/message_delta","params":{"session_id":"s1","workspace_id":"w","agent_type":"scripted",` +
			`"timestamp":"2026-01-02T03:04:05.000Z","extra":1,"seq":8}}`), // a field between timestamp and seq
		frame("message_delta", "s1", 9, "x"),
		[]byte(`{"jsonrpc":"2.0","method":"event/message_delta","params":{"session_id":"s1","workspace_id":"w","agent_type":"scripted",` +
			`"timestamp":"2026-01-02T03:04:05.000Z"}}`), // no seq
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`),
		frame("message_delta", "s1", 10, "x"),
		frame("message_delta", "s1", 11, "x"), // the same time twice, then another
		frame("message_delta", "s1", 11, "x"),
		frame("message_delta", "s1", 12, "x"),
	}
	var c headerCache
	for i, f := range frames {
		want, wantOK := header(f)
		got, ok := c.header(f)
		if ok != wantOK || (ok && (got.last != want.last || got.seq != want.seq || !got.created.Equal(want.created))) {
			t.Errorf("frame %d: cache read %+v %v, header %+v %v", i, got, ok, want, wantOK)
		}
	}
}
