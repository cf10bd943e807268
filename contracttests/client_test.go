package contracttests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
)

// recorder is a testing.TB that keeps the failures reported to it.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// fakeServer answers each request with the canned frames for its method,
// in order: a "%ID%" in a frame is replaced by the request's id.
func fakeServer(t *testing.T, frames map[string][]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := ws.ReadJSON(&req); err != nil {
				return
			}
			for _, f := range frames[req.Method] {
				if err := ws.WriteMessage(websocket.TextMessage, []byte(strings.ReplaceAll(f, "%ID%", string(req.ID)))); err != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
}

const validHeartbeat = `{"jsonrpc":"2.0","method":"event/heartbeat","params":{"server_time":"2026-01-01T00:00:00.000Z","sequence":1,"uptime_seconds":3}}`

func TestClientAcceptsValidTraffic(t *testing.T) {
	url := fakeServer(t, map[string][]string{
		"workspace/list": {validHeartbeat, `{"jsonrpc":"2.0","id":%ID%,"result":{"workspaces":[]}}`},
		"workspace/get":  {`{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32020,"message":"workspace not found","data":{"workspace_id":"x"}}}`},
	})
	rec := &recorder{TB: t}
	ctx := testCtx(t)
	c := Dial(rec, ctx, url, "token")
	if _, rerr := c.Call(ctx, rpc.MethodWorkspaceList, nil); rerr != nil {
		t.Fatalf("workspace/list: %v", rerr)
	}
	_, rerr := c.Call(ctx, rpc.MethodWorkspaceGet, rpc.WorkspaceIDParams{WorkspaceID: "x"})
	if rerr == nil || rerr.Code != rpc.CodeWorkspaceNotFound || errData(t, rerr)["workspace_id"] != "x" {
		t.Errorf("workspace/get error = %v", rerr)
	}
	if _, err := c.Await(ctx, Event(rpc.EventHeartbeat, "")); err != nil {
		t.Fatal(err)
	}
	if f := rec.failures(); len(f) != 0 {
		t.Errorf("valid traffic reported as violations: %q", f)
	}
}

func TestClientReportsViolations(t *testing.T) {
	cases := []struct {
		name   string
		method string
		frames []string
		want   string
	}{
		{"result of the wrong shape", "workspace/list", []string{`{"jsonrpc":"2.0","id":%ID%,"result":{"workspaces":"none"}}`}, "workspace/list"},
		{"result missing a required field", "session/stop", []string{`{"jsonrpc":"2.0","id":%ID%,"result":{"success":true,"status":"stopped","session_id":"s"}}`}, "agent_type"},
		{"undocumented error code", "workspace/list", []string{`{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32013,"message":"no pending request"}}`}, "-32013"},
		{"error without a message", "workspace/get", []string{`{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32020,"message":""}}`}, "no message"},
		{"event with a bad enum", "workspace/list", []string{
			`{"jsonrpc":"2.0","method":"event/pty_state","params":{"session_id":"s","workspace_id":"w","agent_type":"a","timestamp":"2026-01-01T00:00:00.000Z","seq":1,"epoch":"e","state":"dancing","waiting_for_input":false}}`,
			`{"jsonrpc":"2.0","id":%ID%,"result":{"workspaces":[]}}`}, "event/pty_state"},
		{"event with a bad timestamp", "workspace/list", []string{
			`{"jsonrpc":"2.0","method":"event/heartbeat","params":{"server_time":"yesterday","sequence":1,"uptime_seconds":3}}`,
			`{"jsonrpc":"2.0","id":%ID%,"result":{"workspaces":[]}}`}, "event/heartbeat"},
		{"request to the client", "workspace/list", []string{
			`{"jsonrpc":"2.0","id":"s1","method":"event/heartbeat","params":{"server_time":"2026-01-01T00:00:00.000Z","sequence":1,"uptime_seconds":3}}`,
			`{"jsonrpc":"2.0","id":%ID%,"result":{"workspaces":[]}}`}, "server sent a request"},
		{"unknown notification", "workspace/list", []string{
			`{"jsonrpc":"2.0","method":"event/surprise","params":{}}`,
			`{"jsonrpc":"2.0","id":%ID%,"result":{"workspaces":[]}}`}, "event/surprise"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			url := fakeServer(t, map[string][]string{tc.method: tc.frames})
			for _, raw := range []bool{false, true} {
				rec := &recorder{TB: t}
				if raw {
					r := DialRaw(rec, ctx, url, "token")
					if err := r.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":{}}`)); err != nil {
						t.Fatal(err)
					}
					if _, err := r.Next(ctx); err != nil {
						t.Fatal(err)
					}
				} else {
					c := Dial(rec, ctx, url, "token")
					c.Call(ctx, tc.method, map[string]any{})
				}
				f := rec.failures()
				if len(f) == 0 || !strings.Contains(strings.Join(f, "\n"), tc.want) {
					t.Errorf("raw %v: violations %q, want one about %s", raw, f, tc.want)
				}
			}
		})
	}
}

// The events a server sent before a response are among Notifications as
// soon as the call returns (they are kept by another goroutine, reading
// the client's Events).
func TestClientKeepsEventsBeforeTheResponse(t *testing.T) {
	const n = 200
	frames := make([]string, 0, n+1)
	for range n {
		frames = append(frames, validHeartbeat)
	}
	url := fakeServer(t, map[string][]string{
		"workspace/list": append(frames, `{"jsonrpc":"2.0","id":%ID%,"result":{"workspaces":[]}}`),
	})
	ctx := testCtx(t)
	c := Dial(t, ctx, url, "token")
	for i := 1; i <= 3; i++ {
		if _, rerr := c.Call(ctx, rpc.MethodWorkspaceList, nil); rerr != nil {
			t.Fatal(rerr)
		}
		if got := len(c.Notifications()); got != i*n {
			t.Fatalf("%d notifications after call %d, want %d", got, i, i*n)
		}
	}
}
