package contracttests

import (
	"testing"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
)

// Shutting cdevd down (what SIGTERM does) closes every client with 1001 and
// ends every session's process.
func TestShutdown(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	a := e.connect(ctx)
	b := e.connect(ctx)
	w := e.workspace(ctx, a)
	busy := startSession(t, ctx, a, w)
	send(t, ctx, a, busy, script(map[string]any{"delta": "working"}, map[string]any{"wait_interrupt": true}))
	await(t, ctx, a, rpc.EventMessageDelta, busy)
	startSession(t, ctx, b, w) // idle, with its process
	if n := len(children(t, w.Path)); n != 2 {
		t.Fatalf("%d processes in the workspace, want 2", n)
	}

	if err := e.d.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	for _, c := range []*Client{a, b} {
		select {
		case <-c.Done():
		case <-ctx.Done():
			t.Fatal("a client is still connected after shutdown")
		}
		if code := c.CloseCode(); code != websocket.CloseGoingAway {
			t.Errorf("closed with %d (%v), want %d (going away)", code, c.ReadError(), websocket.CloseGoingAway)
		}
	}
	awaitNoChildren(t, ctx, w.Path)
	if ws, _, err := DialWebSocket(ctx, e.url, e.token); err == nil {
		ws.Close()
		t.Error("a new connection was accepted after shutdown")
	}
}
