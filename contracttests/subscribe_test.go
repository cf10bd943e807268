package contracttests

import (
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// A client subscribed to a workspace hears about its sessions' lifecycle,
// but not their messages, which need watch.
func TestWorkspaceSubscription(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	runner := e.connect(ctx)
	w := e.workspace(ctx, runner)
	other := e.workspace(ctx, runner)
	sub := e.connect(ctx)

	var res rpc.SubscribeResult
	sub.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, &res)
	if !res.Success || res.WorkspaceID != w.ID || !slices.Equal(res.Subscribed, []string{w.ID}) {
		t.Errorf("subscribe = %+v", res)
	}
	var subs rpc.SubscriptionsResult
	sub.MustCall(ctx, rpc.MethodWorkspaceSubscriptions, nil, &subs)
	if !slices.Equal(subs.Workspaces, []string{w.ID}) {
		t.Errorf("subscriptions = %+v", subs)
	}
	_, rerr := sub.Call(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: "ws_missing"})
	wantError(t, "subscribing to an unknown workspace", rerr, rpc.CodeWorkspaceNotFound)

	elsewhere := startSession(t, ctx, runner, other) // not subscribed: not heard of
	id := startSession(t, ctx, runner, w)
	var start rpc.SessionStartEvent
	if err := await(t, ctx, sub, rpc.EventSessionStart, id).Decode(&start); err != nil {
		t.Fatal(err)
	}
	if start.WorkspaceID != w.ID || start.AgentType != scripted.ID || start.Source != "new" {
		t.Errorf("session_start = %+v", start)
	}
	send(t, ctx, runner, id, "hello")
	await(t, ctx, runner, rpc.EventTurnCompleted, id)
	runner.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: scripted.ID}, nil)
	var stopped rpc.SessionEndEvent
	if err := await(t, ctx, sub, rpc.EventSessionStopped, id).Decode(&stopped); err != nil {
		t.Fatal(err)
	}
	if stopped.Reason == "" {
		t.Errorf("session_stopped = %+v, want a reason", stopped)
	}
	for _, n := range sub.Notifications() {
		switch {
		case n.Header().SessionID == elsewhere:
			t.Errorf("got %s of a session in a workspace not subscribed to", n.Type())
		case n.Type() == rpc.EventMessage, n.Type() == rpc.EventMessageDelta, n.Type() == rpc.EventTurnCompleted:
			t.Errorf("a subscriber that does not watch got %s", n.Type())
		}
	}

	sub.MustCall(ctx, rpc.MethodWorkspaceUnsubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, &res)
	if !res.Success || len(res.Subscribed) != 0 {
		t.Errorf("unsubscribe = %+v", res)
	}
	sub.MustCall(ctx, rpc.MethodWorkspaceSubscribeAll, nil, &res)
	if !res.Success || !slices.Contains(res.Subscribed, w.ID) || !slices.Contains(res.Subscribed, other.ID) {
		t.Errorf("subscribeAll = %+v, want both workspaces", res)
	}
}
