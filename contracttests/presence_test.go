package contracttests

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// The app's shapes of presence (IOS-APP.md, Presence): all optional.
type appFocus struct {
	Success      *bool    `json:"success"`
	WorkspaceID  *string  `json:"workspace_id"`
	SessionID    *string  `json:"session_id"`
	ViewerCount  *int     `json:"viewer_count"`
	OtherViewers []string `json:"other_viewers"`
}

// presenceEvent is session_joined or session_left as the app receives it:
// the agent_type of a runtime it has open, and no session_id (which would
// make the app decode it as a session's info).
type presenceEvent struct {
	AgentType        *string         `json:"agent_type" app:"required"`
	SessionID        json.RawMessage `json:"session_id"`
	JoiningClientID  string          `json:"joining_client_id"`
	LeavingClientID  string          `json:"leaving_client_id"`
	OtherViewers     []string        `json:"other_viewers"`
	RemainingViewers []string        `json:"remaining_viewers"`
	ViewerCount      *int            `json:"viewer_count" app:"required"`
}

func awaitPresence(t *testing.T, c *Client, typ string) presenceEvent {
	t.Helper()
	ctx := testCtx(t)
	n, err := c.Await(ctx, func(n Notification) bool { return n.Type() == typ })
	if err != nil {
		t.Fatalf("no %s: %v", typ, err)
	}
	var ev presenceEvent
	appDecode(t, typ, n.Params, &ev)
	if ev.SessionID != nil {
		t.Errorf("%s carries session_id %s", typ, ev.SessionID)
	}
	if *ev.AgentType != scripted.ID {
		t.Errorf("%s agent_type %q, want the session's %s", typ, *ev.AgentType, scripted.ID)
	}
	return ev
}

// Two devices on one session: each sees the other come and go, by focus,
// by hiding its page (active:false), and by disconnecting.
func TestPresence(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	a, initA := Connect(t, ctx, e.url, e.token)
	b, initB := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, a)
	id := startSession(t, ctx, a, w)
	focus := func(c *Client, params string) appFocus {
		t.Helper()
		raw, err := c.Call(ctx, rpc.MethodFocus, json.RawMessage(params))
		if err != nil {
			t.Fatalf("focus %s: %v", params, err)
		}
		var f appFocus
		appDecode(t, "focus", raw, &f)
		return f
	}
	req := `{"workspace_id":"` + w.ID + `","session_id":"` + id + `"}`

	if f := focus(a, req); !*f.Success || *f.ViewerCount != 1 || len(f.OtherViewers) != 0 || *f.SessionID != id {
		t.Errorf("a alone: %+v", f)
	}
	if f := focus(b, req); *f.ViewerCount != 2 || !slices.Equal(f.OtherViewers, []string{initA.ClientID}) {
		t.Errorf("b joins: count %d others %v", *f.ViewerCount, f.OtherViewers)
	}
	if ev := awaitPresence(t, a, rpc.EventSessionJoined); ev.JoiningClientID != initB.ClientID ||
		*ev.ViewerCount != 2 || !slices.Equal(ev.OtherViewers, []string{initB.ClientID}) {
		t.Errorf("a hears b join: %+v", ev)
	}
	var list rpc.WorkspaceListResult
	a.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, &list)
	for _, lw := range list.Workspaces {
		if lw.ID != w.ID {
			continue
		}
		want := []string{initA.ClientID, initB.ClientID}
		slices.Sort(want)
		if len(lw.Sessions) != 1 || !slices.Equal(lw.Sessions[0].Viewers, want) {
			t.Errorf("workspace/list sessions %+v, want viewers %v", lw.Sessions, want)
		}
	}

	// b's page is hidden.
	if f := focus(b, `{"workspace_id":"`+w.ID+`","session_id":"`+id+`","active":false}`); *f.ViewerCount != 0 {
		t.Errorf("b hidden: %+v", f)
	}
	if ev := awaitPresence(t, a, rpc.EventSessionLeft); ev.LeavingClientID != initB.ClientID || *ev.ViewerCount != 1 ||
		len(ev.RemainingViewers) != 0 {
		t.Errorf("a hears b leave: %+v", ev)
	}
	// Back, then gone.
	focus(b, req)
	awaitPresence(t, a, rpc.EventSessionJoined)
	b.Close()
	if ev := awaitPresence(t, a, rpc.EventSessionLeft); ev.LeavingClientID != initB.ClientID || *ev.ViewerCount != 1 {
		t.Errorf("a hears b disconnect: %+v", ev)
	}

	for _, bad := range []struct {
		params any
		code   int64
	}{
		{rpc.FocusParams{WorkspaceID: w.ID}, rpc.CodeInvalidParams},
		{rpc.FocusParams{SessionID: id}, rpc.CodeInvalidParams},
		{rpc.FocusParams{WorkspaceID: "ws_nope", SessionID: id}, rpc.CodeWorkspaceNotFound},
		{map[string]any{"workspace_id": w.ID, "session_id": id, "active": "no"}, rpc.CodeInvalidParams},
	} {
		if _, err := a.Call(ctx, rpc.MethodFocus, bad.params); err == nil || err.Code != bad.code {
			t.Errorf("focus %+v = %v, want %d", bad.params, err, bad.code)
		}
	}
}
