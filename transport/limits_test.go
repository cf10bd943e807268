package transport

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
	"github.com/gorilla/websocket"
)

// attackBatch is a batch of n invalid elements ("1,1,1,…"), the shape of the
// frame that made cdevd build a 760 MB reply.
func attackBatch(n int) []byte {
	b := make([]byte, 0, 2*n+1)
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '1')
	}
	return append(b, ']')
}

// allocated returns the bytes f allocates (the whole process's, so the
// caller runs nothing else meanwhile).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A batch longer than MaxBatch gets one error, without cdevd allocating
// per element first.
func TestBatchTooLong(t *testing.T) {
	s := New(Config{Token: testToken}, newTestHandler())
	c := newConn(s, nil)
	defer c.Close(websocket.CloseNormalClosure, "")
	frame := attackBatch(1 << 20) // 2 MB, a million elements
	alloc := allocated(func() {
		c.dispatch(frame)
		c.handlers.Wait()
	})
	var out [][]byte
	for msg, ok := c.send.pop(); ok; msg, ok = c.send.pop() {
		out = append(out, msg)
	}
	if len(out) != 1 || bytes.HasPrefix(out[0], []byte("[")) {
		t.Fatalf("got %d frames (first %.200s), want one error object", len(out), firstOf(out))
	}
	resp := decodeResponse(t, out[0])
	if string(resp.ID) != "null" || resp.Error == nil || resp.Error.Code != rpc.CodeInvalidRequest {
		t.Fatalf("got %s, want -32600 with id null", out[0])
	}
	data, _ := json.Marshal(resp.Error.Data)
	if !strings.Contains(string(data), `"max_batch":`+strconv.Itoa(MaxBatch)) {
		t.Errorf("error data %s does not state the limit", data)
	}
	// Counting stops at the limit: what is allocated must not grow with
	// the frame (a million RawMessages alone would be 24 MB).
	t.Logf("dispatching a batch of 2^20 elements allocated %d bytes", alloc)
	if alloc > 1<<20 {
		t.Errorf("dispatching the batch allocated %d bytes, want under 1 MiB", alloc)
	}

	// Exactly MaxBatch elements are still served, each answered.
	out = nil
	elems := make([]string, MaxBatch)
	for i := range elems {
		elems[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"echo"}`
	}
	replies := dispatchAndWait(t, "["+strings.Join(elems, ",")+"]")
	var got []json.RawMessage
	if len(replies) != 1 || json.Unmarshal([]byte(replies[0]), &got) != nil || len(got) != MaxBatch {
		t.Fatalf("a batch of MaxBatch: got %d frames, want one array of %d replies", len(replies), MaxBatch)
	}
}

func firstOf(out [][]byte) []byte {
	if len(out) == 0 {
		return nil
	}
	return out[0]
}

// The replies of one batch are bounded in total: those past the budget are
// replaced by a short error naming the limit, so every request still gets
// exactly one reply.
func TestBatchReplyBudget(t *testing.T) {
	s := New(Config{Token: testToken, MaxReplyBytes: 4096}, newTestHandler())
	c := newConn(s, nil)
	defer c.Close(websocket.CloseNormalClosure, "")
	big := `["` + strings.Repeat("x", 1500) + `"]`
	var elems []string
	for i := range 6 {
		elems = append(elems, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"echo","params":`+big+`}`)
	}
	c.dispatch([]byte("[" + strings.Join(elems, ",") + "]"))
	c.handlers.Wait()
	msg, ok := c.send.pop()
	if !ok {
		t.Fatal("no reply")
	}
	if len(msg) > 4096+1024 {
		t.Errorf("batch reply is %d bytes, budget 4096", len(msg))
	}
	var replies []wireResponse
	if err := json.Unmarshal(msg, &replies); err != nil || len(replies) != 6 {
		t.Fatalf("reply %.300s: %v, want 6 replies", msg, err)
	}
	var ok2, cut int
	for _, r := range replies {
		switch {
		case r.Error == nil && len(r.Result) > 1500:
			ok2++
		case r.Error != nil && r.Error.Code == rpc.CodeInternalError && strings.Contains(r.Error.Message, "batch reply"):
			cut++
		default:
			t.Errorf("unexpected reply %+v", r)
		}
	}
	if ok2 == 0 || cut == 0 {
		t.Errorf("%d full and %d cut replies; want some of each", ok2, cut)
	}
}

// Invalid UTF-8 in a request is refused with -32600 and id null; nothing of
// it is echoed, so every frame stays valid UTF-8 (RFC 6455 §8.1).
func TestInvalidUTF8Refused(t *testing.T) {
	tests := []struct{ name, frame string }{
		{"in the id", "{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"echo\"}"},
		{"in the method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"e\xc3\"}"},
		{"in the params", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":[\"\xed\xa0\x80\"]}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, frame := range []string{tt.frame, "[" + tt.frame + "]"} {
				out := dispatchAndWait(t, frame)
				if len(out) != 1 || !utf8.ValidString(out[0]) {
					t.Fatalf("%q: got %q, want one valid UTF-8 frame", frame, out)
				}
				msg := []byte(out[0])
				if frame[0] == '[' {
					var rs []json.RawMessage
					if err := json.Unmarshal(msg, &rs); err != nil || len(rs) != 1 {
						t.Fatalf("batch reply %s", msg)
					}
					msg = rs[0]
				}
				resp := decodeResponse(t, msg)
				if string(resp.ID) != "null" || resp.Error == nil || resp.Error.Code != rpc.CodeInvalidRequest ||
					!strings.Contains(resp.Error.Message, "UTF-8") {
					t.Errorf("%q: got %s, want -32600 about UTF-8 with id null", frame, msg)
				}
			}
		})
	}
	// Over a real socket the reply arrives and the connection stays.
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)
	resp := decodeResponse(t, roundTrip(t, ws, tests[0].frame))
	if resp.Error == nil || resp.Error.Code != rpc.CodeInvalidRequest {
		t.Fatalf("got %+v", resp)
	}
	resp = decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":"é","method":"echo"}`))
	if string(resp.ID) != `"é"` {
		t.Fatalf("valid UTF-8 id after: %+v", resp)
	}
}

// Whatever a handler returns, the writer sends valid UTF-8 only: a result
// or event carrying raw bytes from elsewhere (a CLI's output) is repaired.
func TestFramesAlwaysValidUTF8(t *testing.T) {
	s := startServer(t, Config{})
	ws, c := s.rawConn(t)
	if !c.SendEvent("event/x", []byte("{\"jsonrpc\":\"2.0\",\"method\":\"event/x\",\"params\":{\"t\":\"a\xffb\"}}")) {
		t.Fatal("SendEvent refused")
	}
	msg := readFrame(t, ws) // gorilla does not check UTF-8 itself
	if !utf8.Valid(msg) {
		t.Fatalf("frame %q is not valid UTF-8", msg)
	}
	if !json.Valid(msg) || !strings.Contains(string(msg), "a\uFFFDb") {
		t.Errorf("frame %q: want the bad byte replaced by U+FFFD", msg)
	}
}

// BenchmarkAttackBatch dispatches the attack frame: 16 MB, a batch of 8
// million invalid elements. Run with -benchmem -benchtime=1x: B/op is what
// one such frame costs cdevd.
func BenchmarkAttackBatch(b *testing.B) {
	s := New(Config{Token: testToken}, newTestHandler())
	frame := attackBatch(8 << 20)
	b.ReportAllocs()
	for b.Loop() {
		c := newConn(s, nil)
		c.dispatch(frame)
		c.handlers.Wait()
		c.Close(websocket.CloseNormalClosure, "")
	}
}
