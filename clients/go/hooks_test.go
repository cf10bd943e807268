package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gorilla/websocket"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/rpc"
)

// fake is a WebSocket server that hands each connection to serve.
func fake(t *testing.T, serve func(ws *websocket.Conn)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		serve(ws)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// request reads the next frame the client sent.
func request(ws *websocket.Conn) (id json.RawMessage, method string, ok bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if ws.ReadJSON(&m) != nil {
		return nil, "", false
	}
	return m.ID, m.Method, true
}

const heartbeat = `{"jsonrpc":"2.0","method":"event/heartbeat","params":{"server_time":"2026-01-01T00:00:00.000Z","sequence":1,"uptime_seconds":3}}`

// OnFrame sees every frame both ways, raw; an event the server sent before
// a response has been seen, and is in Events, once the call returns.
func TestOnFrame(t *testing.T) {
	url := fake(t, func(ws *websocket.Conn) {
		for {
			id, _, ok := request(ws)
			if !ok {
				return
			}
			_ = ws.WriteMessage(websocket.TextMessage, []byte(heartbeat))
			_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":`+string(id)+`,"result":{}}`))
		}
	})
	var mu sync.Mutex
	var seen []string
	c := dial(t, client.Config{URL: url, NoInitialize: true, OnFrame: func(dir client.Direction, frame []byte) {
		var m struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal(frame, &m)
		what := m.Method
		if m.Result != nil {
			what = "result"
		}
		mu.Lock()
		seen = append(seen, dir.String()+" "+what)
		mu.Unlock()
	}})
	if err := c.Call(ctxFor(t), rpc.MethodWorkspaceList, nil, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := strings.Join(seen, ", ")
	mu.Unlock()
	if want := "sent workspace/list, received event/heartbeat, received result"; got != want {
		t.Errorf("frames %q, want %q", got, want)
	}
	select {
	case ev := <-c.Events():
		if ev.Type() != rpc.EventHeartbeat {
			t.Errorf("event %s, want the heartbeat", ev.Method)
		}
	default:
		t.Error("the heartbeat sent before the response is not in Events when the call returns")
	}
}

// With NoInitialize the server sees no initialize until the caller sends
// one; Notify sends a frame with no id.
func TestNoInitializeAndNotify(t *testing.T) {
	got := make(chan string, 10)
	url := fake(t, func(ws *websocket.Conn) {
		for {
			id, method, ok := request(ws)
			if !ok {
				return
			}
			if id == nil {
				got <- "notification " + method
				continue
			}
			got <- "request " + method
			_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32002,"message":"not initialized"}}`))
		}
	})
	c := dial(t, client.Config{URL: url, NoInitialize: true})
	ctx := ctxFor(t)
	if err := c.Notify(ctx, rpc.MethodInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	var rerr *rpc.Error
	if err := c.Call(ctx, rpc.MethodWorkspaceList, nil, nil); !errors.As(err, &rerr) || rerr.Code != rpc.CodeNotInitialized {
		t.Fatalf("workspace/list: %v", err)
	}
	for _, want := range []string{"notification initialized", "request workspace/list"} {
		if g := <-got; g != want {
			t.Errorf("server got %q, want %q", g, want)
		}
	}
	if _, err := client.Dial(ctx, client.Config{URL: url, NoInitialize: true, Reconnect: true}); err == nil {
		t.Error("NoInitialize with Reconnect was accepted")
	}
}

// Config.Dialer makes the connection.
func TestDialer(t *testing.T) {
	d := server(t)
	var dials atomic.Int32
	nd := &net.Dialer{}
	c := dial(t, client.Config{URL: d.URL(), Token: d.Token(), Dialer: &websocket.Dialer{
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return nd.DialContext(ctx, network, addr)
		}}})
	if _, err := c.WorkspaceList(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d dials through Config.Dialer, want 1", n)
	}
}

// When the server closes the connection, Events is closed and Err says
// why: ErrClosed, with the close frame and its code.
func TestErrHasCloseCode(t *testing.T) {
	d := server(t)
	c := dial(t, client.Config{URL: d.URL(), Token: d.Token()})
	if err := d.Shutdown(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	for range c.Events() {
	}
	err := c.Err()
	var ce *websocket.CloseError
	if !errors.Is(err, client.ErrClosed) || !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("Err() = %v, want ErrClosed and close code %d", err, websocket.CloseGoingAway)
	}
}
