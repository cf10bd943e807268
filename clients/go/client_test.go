package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/contracttests"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

func TestMain(m *testing.M) {
	if scripted.IsCLI() {
		scripted.Main()
		return
	}
	goleak.VerifyTestMain(m)
}

const wait = 20 * time.Second

// server is an in-process cdevd with the scripted runtime.
func server(t *testing.T) *daemon.Daemon {
	t.Helper()
	sc := scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()}
	return contracttests.StartDaemon(t, daemon.Config{Adapters: []runtimes.Adapter{scripted.New(sc)}})
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, cfg client.Config) *client.Client {
	t.Helper()
	c, err := client.Dial(ctxFor(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func script(steps ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"steps": steps})
	return string(b)
}

// next returns the next event of type typ, failing after wait.
func next(t *testing.T, c *client.Client, typ string) client.Event {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed before %s: %v", typ, c.Err())
			}
			if ev.Type() == typ {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event", typ)
		}
	}
}

// A whole session through the typed client: the registry from initialize,
// start, send, deltas and the message, a permission answered, history,
// messages, stop.
func TestSession(t *testing.T) {
	d := server(t)
	c := dial(t, client.Config{URL: d.URL(), Token: d.Token(), Subprotocol: true})
	ctx := ctxFor(t)
	if rts := c.Initialized().Capabilities.RuntimeRegistry.Runtimes; len(rts) != 1 || rts[0].ID != scripted.ID {
		t.Fatalf("registry %+v", rts)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	w, err := c.WorkspaceAdd(ctx, rpc.WorkspaceAddParams{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.SessionStart(ctx, rpc.SessionStartParams{WorkspaceID: w.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Watch(ctx, rpc.WatchParams{WorkspaceID: w.ID, SessionID: s.SessionID}); err != nil {
		t.Fatal(err)
	}
	prompt := script(map[string]any{"delta": "hel"}, map[string]any{"permission": map[string]any{"tool": "Bash", "target": "ls"}},
		map[string]any{"message": "hello"})
	if _, err := c.SessionSend(ctx, rpc.SessionSendParams{SessionID: s.SessionID, Prompt: prompt}); err != nil {
		t.Fatal(err)
	}
	var delta rpc.MessageDeltaEvent
	if err := next(t, c, rpc.EventMessageDelta).Decode(&delta); err != nil || delta.Text != "hel" {
		t.Fatalf("delta %+v %v", delta, err)
	}
	var perm rpc.PermissionEvent
	if err := next(t, c, rpc.EventPermission).Decode(&perm); err != nil {
		t.Fatal(err)
	}
	if err := c.SessionRespond(ctx, rpc.SessionRespondParams{SessionID: s.SessionID, Type: rpc.RespondPermission,
		Response: "yes", RequestID: perm.RequestID}); err != nil {
		t.Fatal(err)
	}
	var said rpc.MessageEvent
	if err := next(t, c, rpc.EventMessage).Decode(&said); err != nil || said.UUID == "" {
		t.Fatalf("message %+v %v", said, err)
	}
	next(t, c, rpc.EventTurnCompleted)
	h, err := c.History(ctx, rpc.HistoryParams{WorkspaceID: w.ID})
	if err != nil || len(h.Sessions) != 1 || h.Sessions[0].SessionID != s.SessionID {
		t.Fatalf("history %+v %v", h, err)
	}
	m, err := c.Messages(ctx, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: s.SessionID})
	if err != nil || m.Total == 0 {
		t.Fatalf("messages %+v %v", m, err)
	}
	// A page's ids are positions; the message received live is found by
	// its uuid.
	found := false
	for i, pm := range m.Messages {
		if pm.ID != i {
			t.Errorf("message %d has id %d", i, pm.ID)
		}
		found = found || pm.UUID == said.UUID
	}
	if !found {
		t.Errorf("messages %+v lack the message received live, uuid %s", m.Messages, said.UUID)
	}
	if _, err := c.SessionStop(ctx, rpc.SessionStopParams{SessionID: s.SessionID}); err != nil {
		t.Fatal(err)
	}
	// A JSON-RPC error is typed.
	err = c.Call(ctx, "no/such/method", nil, nil)
	var rerr *rpc.Error
	if !errors.As(err, &rerr) || rerr.Code != rpc.CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
}

// Bad servers give clear errors, never a hang: a wrong token, a server
// that never answers initialize, one that sends garbage, one that closes.
func TestBadServers(t *testing.T) {
	d := server(t)
	if _, err := client.Dial(ctxFor(t), client.Config{URL: d.URL(), Token: "wrong"}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
	for name, behave := range map[string]func(*websocket.Conn){
		"silent": func(ws *websocket.Conn) { _, _, _ = ws.ReadMessage(); _, _, _ = ws.ReadMessage() },
		"garbage": func(ws *websocket.Conn) {
			_, _, _ = ws.ReadMessage()
			_ = ws.WriteMessage(websocket.TextMessage, []byte("{nope"))
		},
		"closes": func(ws *websocket.Conn) { _, _, _ = ws.ReadMessage() },
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer ws.Close()
				behave(ws)
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := client.Dial(ctx, client.Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Token: "t"})
			if err == nil || !strings.Contains(err.Error(), "initialize") {
				t.Fatalf("dial: %v", err)
			}
		})
	}
}

// After a lost connection the client dials again and watches again from
// the last event it delivered: the events of a turn that ran meanwhile
// arrive once each, in order, with no gap.
func TestReconnectReplays(t *testing.T) {
	d := server(t)
	reconnected := make(chan error, 10)
	c := dial(t, client.Config{URL: d.URL(), Token: d.Token(), Reconnect: true,
		OnReconnect: func(err error) { reconnected <- err }})
	other := dial(t, client.Config{URL: d.URL(), Token: d.Token()})
	ctx := ctxFor(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	w, err := c.WorkspaceAdd(ctx, rpc.WorkspaceAddParams{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.SessionStart(ctx, rpc.SessionStartParams{WorkspaceID: w.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Watch(ctx, rpc.WatchParams{WorkspaceID: w.ID, SessionID: s.SessionID}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SessionSend(ctx, rpc.SessionSendParams{SessionID: s.SessionID, Prompt: script(map[string]any{"message": "first"})}); err != nil {
		t.Fatal(err)
	}
	before := until(t, c, func(ev client.Event) bool { return ev.Type() == rpc.EventTurnCompleted })

	// The connection breaks; another client runs a whole turn meanwhile,
	// before the client may reconnect: its events can only be replayed.
	release := make(chan struct{})
	client.HoldReconnect(c, release)
	client.BreakForTest(c)
	if _, err := other.Watch(ctx, rpc.WatchParams{WorkspaceID: w.ID, SessionID: s.SessionID}); err != nil {
		t.Fatal(err)
	}
	var steps []map[string]any
	for i := 0; i < 20; i++ {
		steps = append(steps, map[string]any{"delta": "x"})
	}
	steps = append(steps, map[string]any{"message": "second"})
	if _, err := other.SessionSend(ctx, rpc.SessionSendParams{SessionID: s.SessionID, Prompt: script(steps...)}); err != nil {
		t.Fatal(err)
	}
	until(t, other, func(ev client.Event) bool { return ev.Type() == rpc.EventTurnCompleted })
	close(release)
	after := until(t, c, func(ev client.Event) bool {
		var m rpc.MessageEvent
		return ev.Type() == rpc.EventMessage && ev.Decode(&m) == nil && len(m.Message.Content) > 0 &&
			m.Message.Content[0].Text == "second"
	})
	// OnReconnect runs once restore has returned, which may be after the
	// replayed events were delivered: wait for it, bounded.
	select {
	case err := <-reconnected:
		if err != nil {
			t.Fatalf("reconnection: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the events came without a reconnection")
	}
	// Every session event once, in order, with no gap across the break.
	all := append(before, after...)
	var last int64
	deltas := 0
	for _, ev := range all {
		if ev.Header.SessionID != s.SessionID {
			continue
		}
		if ev.Header.Seq != last+1 {
			t.Fatalf("seq %d after %d (%s)", ev.Header.Seq, last, ev.Method)
		}
		last = ev.Header.Seq
		if ev.Type() == rpc.EventMessageDelta {
			deltas++
		}
	}
	if deltas != 20 {
		t.Fatalf("%d deltas of the turn run during the break, want 20", deltas)
	}
}

// until returns the events up to the first that stop accepts.
func until(t *testing.T, c *client.Client, stop func(client.Event) bool) []client.Event {
	t.Helper()
	var evs []client.Event
	timeout := time.After(wait)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed: %v", c.Err())
			}
			evs = append(evs, ev)
			if stop(ev) {
				return evs
			}
		case <-timeout:
			t.Fatalf("not seen; got %d events", len(evs))
		}
	}
}

// A refused dial says what to do: where the token comes from, and that the
// endpoint is /ws when the URL lacks it, from cdevd (which says so) or
// from a server that answers the path with a page.
func TestDialRefusalSaysWhatToDo(t *testing.T) {
	d := server(t)
	base := strings.TrimSuffix(d.URL(), "/ws")
	for _, c := range []struct {
		url, token string
		want       []string
	}{
		{d.URL(), "wrong", []string{"401 Unauthorized", "`cdevd token`"}},
		{base, d.Token(), []string{"404 Not Found", "endpoint is /ws", d.URL()}},
		{base + "/", d.Token(), []string{"404 Not Found", "endpoint is /ws", d.URL()}},
	} {
		_, err := client.Dial(ctxFor(t), client.Config{URL: c.url, Token: c.token})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("dial %s: %v, want it to say %q", c.url, err, w)
			}
		}
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>a console</html>"))
	}))
	defer page.Close()
	u := "ws" + strings.TrimPrefix(page.URL, "http")
	_, err := client.Dial(ctxFor(t), client.Config{URL: u, Token: "t"})
	if err == nil || !strings.HasSuffix(err.Error(), "refused with HTTP 200 OK: cdevd's WebSocket endpoint is /ws: dial "+u+"/ws") {
		t.Errorf("dial %s: %v", u, err)
	}
}
