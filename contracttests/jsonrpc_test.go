package contracttests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// reply is one JSON-RPC response as received.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpc.Error      `json:"error"`
}

func nextReply(t *testing.T, ctx context.Context, r *RawConn) reply {
	t.Helper()
	f, err := r.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rep reply
	if err := json.Unmarshal(f, &rep); err != nil {
		t.Fatalf("reply %s is not a single response: %v", f, err)
	}
	return rep
}

func nextBatch(t *testing.T, ctx context.Context, r *RawConn) map[string]reply {
	t.Helper()
	f, err := r.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var reps []reply
	if err := json.Unmarshal(f, &reps); err != nil {
		t.Fatalf("reply %s is not a batch: %v", f, err)
	}
	byID := map[string]reply{}
	for _, rep := range reps {
		k := string(rep.ID)
		if _, dup := byID[k]; dup && k != "null" {
			t.Errorf("batch reply has id %s twice: %s", k, f)
		}
		byID[k] = rep
	}
	if len(byID) != len(reps) {
		t.Errorf("batch reply has %d responses but only %d distinct ids: %s", len(reps), len(byID), f)
	}
	return byID
}

func wantReplyError(t *testing.T, what string, rep reply, id string, code int64) {
	t.Helper()
	if string(rep.ID) != id {
		t.Errorf("%s: reply id %s, want %s", what, rep.ID, id)
	}
	if rep.Error == nil || rep.Error.Code != code {
		t.Errorf("%s: reply error %+v (result %s), want code %d", what, rep.Error, rep.Result, code)
	}
	if rep.JSONRPC != "2.0" {
		t.Errorf("%s: jsonrpc = %q", what, rep.JSONRPC)
	}
}

// initRaw initializes a raw connection.
func initRaw(t *testing.T, ctx context.Context, r *RawConn) {
	t.Helper()
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	if rep := nextReply(t, ctx, r); rep.Error != nil || string(rep.ID) != `"init"` {
		t.Fatalf("initialize: %+v", rep)
	}
}

func TestMalformedJSON(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	r := DialRaw(t, ctx, e.url, e.token)
	for _, frame := range []string{`{"jsonrpc":"2.0","id":1,"method":`, `not json`, `{"a":1}}`} {
		if err := r.Send([]byte(frame)); err != nil {
			t.Fatal(err)
		}
		wantReplyError(t, frame, nextReply(t, ctx, r), "null", rpc.CodeParseError)
	}
	// The connection is still usable.
	initRaw(t, ctx, r)
}

func TestInvalidRequest(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	r := DialRaw(t, ctx, e.url, e.token)
	initRaw(t, ctx, r)
	cases := []struct{ frame, id string }{
		{`"a string"`, "null"},
		{`42`, "null"},
		{`{"jsonrpc":"2.0","id":1}`, "1"}, // no method
		{`{"jsonrpc":"1.0","id":2,"method":"workspace/list"}`, "2"},            // wrong version
		{`{"id":3,"method":"workspace/list"}`, "3"},                            // no version
		{`{"jsonrpc":"2.0","id":4,"method":7}`, "4"},                           // method not a string
		{`{"jsonrpc":"2.0","id":5,"method":"workspace/list","params":3}`, "5"}, // params not structured
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"workspace/list"}`, "null"},   // id not a string or number
	}
	for _, tc := range cases {
		if err := r.Send([]byte(tc.frame)); err != nil {
			t.Fatal(err)
		}
		wantReplyError(t, tc.frame, nextReply(t, ctx, r), tc.id, rpc.CodeInvalidRequest)
	}
	if err := r.SendBinary([]byte(`{"jsonrpc":"2.0","id":6,"method":"workspace/list"}`)); err != nil {
		t.Fatal(err)
	}
	wantReplyError(t, "binary frame", nextReply(t, ctx, r), "null", rpc.CodeInvalidRequest)

	// Still usable, and ids come back exactly as sent.
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":"é-7","method":"workspace/list"}`)); err != nil {
		t.Fatal(err)
	}
	if rep := nextReply(t, ctx, r); rep.Error != nil || string(rep.ID) != `"é-7"` {
		t.Errorf("workspace/list after invalid requests: %+v", rep)
	}
}

func TestBatch(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	r := DialRaw(t, ctx, e.url, e.token)
	initRaw(t, ctx, r)

	if err := r.Send([]byte(`[
		{"jsonrpc":"2.0","id":1,"method":"workspace/list"},
		{"jsonrpc":"2.0","method":"initialized"},
		{"jsonrpc":"2.0","id":"two","method":"no/such/method"},
		{"jsonrpc":"2.0","id":3,"method":"workspace/get","params":{"workspace_id":"ws_missing"}},
		17
	]`)); err != nil {
		t.Fatal(err)
	}
	got := nextBatch(t, ctx, r)
	if len(got) != 4 {
		t.Errorf("batch reply has %d responses, want 4 (none for the notification)", len(got))
	}
	if rep, ok := got["1"]; !ok || rep.Error != nil || rep.Result == nil {
		t.Errorf("batch: workspace/list = %+v", rep)
	}
	wantReplyError(t, "batch: unknown method", got[`"two"`], `"two"`, rpc.CodeMethodNotFound)
	wantReplyError(t, "batch: unknown workspace", got["3"], "3", rpc.CodeWorkspaceNotFound)
	wantReplyError(t, "batch: 17", got["null"], "null", rpc.CodeInvalidRequest)

	// An empty batch is one invalid request, not an empty array.
	if err := r.Send([]byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	wantReplyError(t, "empty batch", nextReply(t, ctx, r), "null", rpc.CodeInvalidRequest)

	// A batch of notifications gets no reply at all: the next frame
	// answers the request sent after it.
	if err := r.Send([]byte(`[{"jsonrpc":"2.0","method":"initialized"},{"jsonrpc":"2.0","method":"initialized"}]`)); err != nil {
		t.Fatal(err)
	}
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":"after","method":"workspace/list"}`)); err != nil {
		t.Fatal(err)
	}
	if rep := nextReply(t, ctx, r); string(rep.ID) != `"after"` {
		t.Errorf("after a batch of notifications, got %+v, want the reply to id \"after\"", rep)
	}
}

func TestUnknownMethod(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	for _, m := range []string{"no/such/method", "event/claude_message", "Initialize", ""} {
		_, rerr := c.Call(ctx, m, nil)
		wantError(t, fmt.Sprintf("method %q", m), rerr, rpc.CodeMethodNotFound)
	}
}

func TestWrongParamTypes(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	cases := []struct {
		method string
		params any
		field  string
	}{
		{rpc.MethodWorkspaceAdd, map[string]any{"path": 42}, "path"},
		{rpc.MethodWorkspaceGet, map[string]any{"workspace_id": []int{1}}, "workspace_id"},
		{rpc.MethodSessionStart, map[string]any{"workspace_id": "w", "yolo_mode": "yes"}, "yolo_mode"},
		{rpc.MethodSessionSend, map[string]any{"prompt": true}, "prompt"},
		{rpc.MethodMessages, map[string]any{"workspace_id": "w", "session_id": "s", "limit": "ten"}, "limit"},
		{rpc.MethodWatch, map[string]any{"workspace_id": "w", "session_id": "s", "since_seq": "1"}, "since_seq"},
		{rpc.MethodWorkspaceAdd, []any{"/tmp"}, "params"},
		{rpc.MethodSessionRespond, map[string]any{"session_id": "s", "type": "vote", "response": "yes"}, "type"},
		{rpc.MethodSessionStart, map[string]any{"workspace_id": "w", "permission_mode": "sometimes"}, "permission_mode"},
	}
	for _, tc := range cases {
		_, rerr := c.Call(ctx, tc.method, tc.params)
		what := fmt.Sprintf("%s %v", tc.method, tc.params)
		wantError(t, what, rerr, rpc.CodeInvalidParams)
		if got := errData(t, rerr)["field"]; got != tc.field {
			t.Errorf("%s: data.field = %v, want %s (error %q)", what, got, tc.field, rerr.Message)
		}
		if reason, _ := errData(t, rerr)["reason"].(string); reason == "" {
			t.Errorf("%s: data.reason is empty", what)
		}
	}
}

func TestHugeFrameCloses1009(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	r := DialRaw(t, ctx, e.url, e.token)
	initRaw(t, ctx, r)
	// A valid request whose frame is one byte over the 16 MiB default.
	prefix := `{"jsonrpc":"2.0","id":1,"method":"workspace/add","params":{"path":"`
	suffix := `"}}`
	pad := 16<<20 + 1 - len(prefix) - len(suffix)
	frame := prefix + strings.Repeat("a", pad) + suffix
	go func() { _ = r.Send([]byte(frame)) }() // the server may stop reading mid-frame
	code, err := r.AwaitClose(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != websocket.CloseMessageTooBig {
		t.Errorf("close code %d, want %d (message too big)", code, websocket.CloseMessageTooBig)
	}
	// The server itself is fine.
	e.connect(ctx)
}

// With a bound of one request in flight, the requests of a batch that
// arrive while a session/start (which spawns a process) runs are refused
// with -32001, and the connection stays usable.
func TestOverloaded(t *testing.T) {
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) { dc.Transport.MaxInflight = 1 })
	ctx := testCtx(t)
	setup := e.connect(ctx)
	w := e.workspace(ctx, setup)
	r := DialRaw(t, ctx, e.url, e.token)
	initRaw(t, ctx, r)
	var batch bytes.Buffer
	fmt.Fprintf(&batch, `[{"jsonrpc":"2.0","id":0,"method":"session/start","params":{"workspace_id":%q}}`, w.ID)
	const n = 5
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&batch, `,{"jsonrpc":"2.0","id":%d,"method":"workspace/list"}`, i)
	}
	batch.WriteString("]")
	if err := r.Send(batch.Bytes()); err != nil {
		t.Fatal(err)
	}
	got := nextBatch(t, ctx, r)
	if rep := got["0"]; rep.Error != nil {
		t.Errorf("session/start: %+v", rep.Error)
	}
	for i := 1; i <= n; i++ {
		wantReplyError(t, "workspace/list beside a running session/start", got[fmt.Sprint(i)], fmt.Sprint(i), rpc.CodeOverloaded)
	}
	if err := r.Send([]byte(`{"jsonrpc":"2.0","id":"later","method":"workspace/list"}`)); err != nil {
		t.Fatal(err)
	}
	if rep := nextReply(t, ctx, r); rep.Error != nil {
		t.Errorf("workspace/list once the start is done: %+v", rep.Error)
	}
}
