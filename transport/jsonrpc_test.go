package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/gorilla/websocket"
	"github.com/sourcegraph/jsonrpc2"
)

func TestParseErrorKeepsConnection(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)

	resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":`))
	if string(resp.ID) != "null" || resp.Error == nil || resp.Error.Code != rpc.CodeParseError {
		t.Fatalf("malformed JSON: got id %s error %+v, want id null and -32700", resp.ID, resp.Error)
	}
	resp = decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":2,"method":"echo","params":["still here"]}`))
	if string(resp.ID) != "2" || string(resp.Result) != `["still here"]` {
		t.Fatalf("after a parse error: %+v", resp)
	}
}

func TestInvalidRequests(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)
	tests := []struct {
		name, frame, id string
	}{
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":1,"method":"echo"}`, "1"},
		{"jsonrpc missing", `{"id":2,"method":"echo"}`, "2"},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":3,"method":"echo"}`, "3"},
		{"method missing", `{"jsonrpc":"2.0","id":4}`, "4"},
		{"method a number", `{"jsonrpc":"2.0","id":5,"method":5}`, "5"},
		{"method null", `{"jsonrpc":"2.0","id":6,"method":null}`, "6"},
		{"params a string", `{"jsonrpc":"2.0","id":7,"method":"echo","params":"x"}`, "7"},
		{"params a number", `{"jsonrpc":"2.0","id":8,"method":"echo","params":3}`, "8"},
		{"params null", `{"jsonrpc":"2.0","id":9,"method":"echo","params":null}`, "9"},
		{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}`, "null"},
		{"id an array", `{"jsonrpc":"2.0","id":[1],"method":"echo"}`, "null"},
		{"id a boolean", `{"jsonrpc":"2.0","id":true,"method":"echo"}`, "null"},
		{"member names are case-sensitive", `{"JSONRPC":"2.0","ID":10,"METHOD":"echo"}`, "null"},
		{"invalid and without id", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, "null"},
		{"a number", `42`, "null"},
		{"a string", `"echo"`, "null"},
		{"null", `null`, "null"},
		{"empty batch", `[]`, "null"},
		{"empty batch with spaces", " [ ] ", "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := roundTrip(t, ws, tt.frame)
			if bytes.HasPrefix(msg, []byte("[")) {
				t.Fatalf("got a batch reply %s, want a single error", msg)
			}
			resp := decodeResponse(t, msg)
			if string(resp.ID) != tt.id || resp.Error == nil || resp.Error.Code != rpc.CodeInvalidRequest || resp.Result != nil {
				t.Errorf("got %s, want -32600 with id %s", msg, tt.id)
			}
		})
	}

	t.Run("binary frame", func(t *testing.T) {
		if err := ws.WriteMessage(websocket.BinaryMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)); err != nil {
			t.Fatal(err)
		}
		resp := decodeResponse(t, readFrame(t, ws))
		if string(resp.ID) != "null" || resp.Error == nil || resp.Error.Code != rpc.CodeInvalidRequest {
			t.Errorf("binary frame: %+v", resp)
		}
	})
}

func TestBatch(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)

	msg := roundTrip(t, ws, `[
		{"jsonrpc":"2.0","id":1,"method":"echo","params":["one"]},
		{"jsonrpc":"2.0","method":"note"},
		{"jsonrpc":"2.0","id":"b","method":"fail"},
		{"jsonrpc":"2.0","id":3,"method":"nope"},
		7
	]`)
	var replies []json.RawMessage
	if err := json.Unmarshal(msg, &replies); err != nil {
		t.Fatalf("batch reply %s is not an array: %v", msg, err)
	}
	byID := map[string]wireResponse{}
	for _, r := range replies {
		resp := decodeResponse(t, r)
		byID[string(resp.ID)] = resp
	}
	if len(replies) != 4 || len(byID) != 4 {
		t.Fatalf("batch reply %s: want 4 distinct replies (none for the notification)", msg)
	}
	if r := byID["1"]; string(r.Result) != `["one"]` {
		t.Errorf("id 1: %+v", r)
	}
	if r := byID[`"b"`]; r.Error == nil || r.Error.Code != rpc.CodeSessionNotFound {
		t.Errorf(`id "b": %+v`, r)
	}
	if r := byID["3"]; r.Error == nil || r.Error.Code != rpc.CodeMethodNotFound {
		t.Errorf("id 3: %+v", r)
	}
	if r := byID["null"]; r.Error == nil || r.Error.Code != rpc.CodeInvalidRequest {
		t.Errorf("element 7: %+v", r)
	}
	if m := await(t, s.h.started, "the batch's notification"); m != "note" {
		t.Errorf("handled %q, want note", m)
	}
}

// A single request inside a batch still gets an array back.
func TestBatchOfOne(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)
	msg := roundTrip(t, ws, `[{"jsonrpc":"2.0","id":1,"method":"echo"}]`)
	if string(msg) != `[{"jsonrpc":"2.0","id":1,"result":null}]` {
		t.Errorf("got %s", msg)
	}
}

// dispatchAndWait runs frames through a connection that has no socket and
// returns what it queued once every handler has returned.
func dispatchAndWait(t *testing.T, frames ...string) []string {
	t.Helper()
	s := New(Config{Token: testToken}, newTestHandler())
	c := newConn(s, nil)
	defer c.Close(websocket.CloseNormalClosure, "")
	for _, f := range frames {
		c.dispatch([]byte(f))
	}
	c.handlers.Wait()
	var out []string
	for msg, ok := c.send.pop(); ok; msg, ok = c.send.pop() {
		out = append(out, string(msg))
	}
	return out
}

func TestNotificationsGetNoReply(t *testing.T) {
	tests := []struct {
		name  string
		frame string
	}{
		{"notification", `{"jsonrpc":"2.0","method":"echo"}`},
		{"failing notification", `{"jsonrpc":"2.0","method":"fail"}`},
		{"unknown method", `{"jsonrpc":"2.0","method":"nope"}`},
		{"panicking notification", `{"jsonrpc":"2.0","method":"panic"}`},
		{"all-notification batch", `[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"fail","params":{}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if out := dispatchAndWait(t, tt.frame); len(out) != 0 {
				t.Errorf("sent %q, want nothing", out)
			}
		})
	}
	// The same path answers a request, so the empty results above mean something.
	out := dispatchAndWait(t, `{"jsonrpc":"2.0","id":1,"method":"fail"}`)
	if len(out) != 1 || !strings.Contains(out[0], `"code":-32010`) {
		t.Errorf("request: sent %q, want one -32010 reply", out)
	}
}

func TestIDsEchoedExactly(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)
	for _, id := range []string{`"abc"`, `""`, `"a<b&c>"`, `"\u00e9\n"`, `-7`, `0`, `1.5`, `-0.25`, `1e3`, `12345678901234567890`, `null`} {
		resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":`+id+`,"method":"echo"}`))
		if string(resp.ID) != id {
			t.Errorf("sent id %s, got %s", id, resp.ID)
		}
		if string(resp.Result) != "null" {
			t.Errorf("id %s: result %s, want null", id, resp.Result)
		}
	}
}

func TestSlowRequestDoesNotDelayFastOne(t *testing.T) {
	s := startServer(t, Config{})
	c, _ := s.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	slow, err := c.DispatchCall(ctx, "block", nil)
	if err != nil {
		t.Fatal(err)
	}
	await(t, s.h.started, "the slow request to start")
	var got map[string]int
	if err := c.call(t, "echo", map[string]int{"n": 42}, &got); err != nil || got["n"] != 42 {
		t.Fatalf("fast request while a slow one runs: %v, %v", got, err)
	}
	close(s.h.release)
	var res string
	if err := slow.Wait(ctx, &res); err != nil || res != "released" {
		t.Fatalf("slow request: %q, %v", res, err)
	}
}

func TestOverloaded(t *testing.T) {
	s := startServer(t, Config{MaxInflight: 2})
	c, _ := s.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	var blocked []jsonrpc2.Waiter
	for range 2 {
		w, err := c.DispatchCall(ctx, "block", nil)
		if err != nil {
			t.Fatal(err)
		}
		blocked = append(blocked, w)
		await(t, s.h.started, "a blocking request to start")
	}
	err := c.call(t, "echo", nil, nil)
	var je *jsonrpc2.Error
	if !errors.As(err, &je) || je.Code != rpc.CodeOverloaded || je.Message != "server overloaded; retry later" {
		t.Fatalf("third request: %v, want -32001 server overloaded; retry later", err)
	}
	close(s.h.release)
	for _, w := range blocked {
		if err := w.Wait(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.call(t, "echo", nil, nil); err != nil {
		t.Fatalf("after the load went away: %v", err)
	}
}

func TestWrappedErrorKeepsCodeAndData(t *testing.T) {
	s := startServer(t, Config{})
	c, _ := s.client(t)
	err := c.call(t, "fail", nil, nil)
	var je *jsonrpc2.Error
	if !errors.As(err, &je) || je.Code != rpc.CodeSessionNotFound || je.Data == nil {
		t.Fatalf("got %v, want -32010 with data", err)
	}
	if string(*je.Data) != `{"session_id":"s1"}` {
		t.Errorf("data %s", *je.Data)
	}
}

func TestPanicIsInternalError(t *testing.T) {
	s := startServer(t, Config{})
	c, _ := s.client(t)
	err := c.call(t, "panic", nil, nil)
	var je *jsonrpc2.Error
	if !errors.As(err, &je) || je.Code != rpc.CodeInternalError || je.Message != "internal error" {
		t.Fatalf("got %v, want -32603 internal error", err)
	}
	if err := c.call(t, "echo", nil, nil); err != nil {
		t.Fatalf("same connection after a panic: %v", err)
	}
	other, _ := s.client(t)
	if err := other.call(t, "echo", nil, nil); err != nil {
		t.Fatalf("new connection after a panic: %v", err)
	}
}

func TestUnencodableReplies(t *testing.T) {
	s := startServer(t, Config{})
	c, _ := s.client(t)
	var je *jsonrpc2.Error
	if err := c.call(t, "bad result", nil, nil); !errors.As(err, &je) || je.Code != rpc.CodeInternalError {
		t.Errorf("unencodable result: %v, want -32603", err)
	}
	if err := c.call(t, "bad data", nil, nil); !errors.As(err, &je) || je.Code != rpc.CodeSessionBusy || je.Data != nil {
		t.Errorf("unencodable error data: %v, want -32011 without data", err)
	}
}

func BenchmarkRoundTrip(b *testing.B) {
	s := startServer(b, Config{})
	c, _ := s.client(b)
	params := map[string]string{"session_id": "s1"}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.call(b, "echo", params, nil); err != nil {
			b.Fatal(err)
		}
	}
}
