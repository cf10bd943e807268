package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
	"github.com/gorilla/websocket"
)

// fuzzHandler never blocks, so every dispatched frame finishes; it echoes
// params and puts the method name in error data, the two ways client bytes
// reach a reply.
type fuzzHandler struct{}

func (fuzzHandler) Open(*Conn)  {}
func (fuzzHandler) Close(*Conn) {}

func (fuzzHandler) Handle(_ context.Context, _ *Conn, method string, params json.RawMessage) (any, error) {
	switch method {
	case "echo":
		return params, nil
	case "panic":
		panic("fuzz")
	case "fail":
		return nil, rpc.SessionNotFound(string(params))
	}
	return nil, &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "method not found: " + method,
		Data: map[string]any{"method": method}}
}

var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[1,2,{"b":null}]}}`,
	`{"jsonrpc":"2.0","id":"x","method":"fail","params":["s"]}`,
	`{"jsonrpc":"2.0","method":"echo"}`,
	`{"jsonrpc":"2.0","id":null,"method":"panic"}`,
	`{"jsonrpc":"2.0","id":-1.5e3,"method":"nope\u00e9"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"echo"},7,{"id":2}]`,
	`[]`, ` [ ] `, `[[]]`, `[1,1,1,1]`, `{}`, `null`, `"str"`, `{"jsonrpc":"2.0","id":1,"method":`,
	`{"JSONRPC":"2.0","ID":1,"METHOD":"echo"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"echo"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"echo\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"\xed\xa0\x80\"}",
	`{"jsonrpc":"2.0","id":"\ud800","method":"echo","params":["\udc00"]}`,
	`{"jsonrpc":"2.0","id":4,"method":"echo","params":"x"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"echo","params":[` + strings.Repeat(`"xxxxxxxxxx",`, 50) + `0]}]`,
}

// FuzzDispatch feeds arbitrary frames through the JSON-RPC layer: no
// panic, every reply valid JSON and UTF-8, one reply per request that has
// an id, and replies bounded in size.
func FuzzDispatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add(attackBatch(MaxBatch + 1))
	s := New(Config{Token: testToken}, fuzzHandler{})
	f.Fuzz(func(t *testing.T, frame []byte) {
		c := newConn(s, nil)
		defer c.Close(websocket.CloseNormalClosure, "")
		c.dispatch(frame)
		c.handlers.Wait()

		var replies []json.RawMessage
		total := 0
		for msg, ok := c.send.pop(); ok; msg, ok = c.send.pop() {
			total += len(msg)
			if !utf8.Valid(msg) || !json.Valid(msg) {
				t.Fatalf("reply %q is not valid UTF-8 JSON", msg)
			}
			if bytes.HasPrefix(msg, []byte("[")) {
				var rs []json.RawMessage
				if err := json.Unmarshal(msg, &rs); err != nil || len(rs) == 0 {
					t.Fatalf("batch reply %q: %v", msg, err)
				}
				replies = append(replies, rs...)
			} else {
				replies = append(replies, msg)
			}
		}
		// Every element's reply is a fixed overhead plus what it echoes
		// of the frame; and there are at most MaxBatch elements.
		if max := 2*len(frame) + 512*MaxBatch; total > max {
			t.Fatalf("replies of %d bytes to a frame of %d bytes", total, len(frame))
		}

		got := map[string]int{}
		for _, r := range replies {
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *rpc.Error      `json:"error"`
			}
			if err := json.Unmarshal(r, &resp); err != nil || resp.JSONRPC != "2.0" || resp.ID == nil ||
				(resp.Error == nil) == (resp.Result == nil) {
				t.Fatalf("reply %s is not a JSON-RPC response", r)
			}
			got[string(resp.ID)]++
		}
		for id, n := range expectedIDs(frame) {
			if got[id] < n {
				t.Fatalf("frame %q: %d replies with id %s, want %d (replies %q)", frame, got[id], id, n, replies)
			}
			delete(got, id)
		}
		delete(got, "null")
		if len(got) != 0 {
			t.Fatalf("frame %q: replies with ids never sent: %v", frame, got)
		}
	})
}

// expectedIDs returns, for a frame, how many replies each id must get: an
// element that is an object whose id is a string or a number must be
// answered under that id, whatever else is wrong with it, unless it is not
// valid UTF-8 (then it is answered with id null).
func expectedIDs(frame []byte) map[string]int {
	want := map[string]int{}
	if !json.Valid(frame) {
		return want
	}
	elems := []json.RawMessage{frame}
	if bytes.HasPrefix(bytes.TrimLeft(frame, " \t\r\n"), []byte("[")) {
		if json.Unmarshal(frame, &elems) != nil || len(elems) > MaxBatch {
			return want
		}
	}
	for _, e := range elems {
		var obj map[string]json.RawMessage
		if !utf8.Valid(e) || json.Unmarshal(e, &obj) != nil {
			continue
		}
		if id, ok := obj["id"]; ok && len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
			want[string(id)]++
		}
	}
	return want
}
