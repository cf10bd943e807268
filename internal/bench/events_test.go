package bench

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// header reads an event's type, seq and creation time as a full decode
// would, even when the event's own text spells the same field names.
func TestHeaderReadsTheEventHeader(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	ev := rpc.MessageDeltaEvent{
		EventHeader: rpc.EventHeader{SessionID: "s", Timestamp: at.Format(time.RFC3339Nano), Seq: 42, Epoch: "e"},
		Text:        `{"seq":7,"timestamp":"2020-01-01T00:00:00Z","method":"event/x"}`,
	}
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": rpc.EventPrefix + rpc.EventMessageDelta, "params": ev})
	if err != nil {
		t.Fatal(err)
	}
	method, seq, created, ok := header(frame)
	if !ok || method != rpc.EventMessageDelta || seq != 42 || !created.Equal(at) {
		t.Fatalf("header = %q %d %v %v, want %q 42 %v", method, seq, created, ok, rpc.EventMessageDelta, at)
	}
	for _, notEvent := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"seq":1,"timestamp":"2026-01-02T03:04:05Z"}}`,
		`{"jsonrpc":"2.0","method":"event/message_delta","params":{"seq":1}}`,
	} {
		if _, _, _, ok := header([]byte(notEvent)); ok {
			t.Errorf("header(%s) ok, want not an event with a header", notEvent)
		}
	}
}
