package contracttests

import (
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// The queue's methods and session/steer over the wire, with the scripted
// runtime (whose turn waits for an interrupt): every method's result and
// refusals as a client decodes them, and queue_changed as its watchers see
// it.
func TestQueueMethodsOverTheWire(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	call := func(method string, params any) rpc.QueueResult {
		t.Helper()
		var res rpc.QueueResult
		c.MustCall(ctx, method, params, &res)
		if res.SessionID != id {
			t.Fatalf("%s answered for session %q", method, res.SessionID)
		}
		return res
	}
	_, rerr := c.Call(ctx, rpc.MethodSessionSteer, rpc.SteerParams{SessionID: id, Prompt: "s"})
	wantError(t, "steer with no turn", rerr, rpc.CodeNoTurn)

	send(t, ctx, c, id, script(map[string]any{"delta": "working"}, map[string]any{"wait_interrupt": true}))
	await(t, ctx, c, rpc.EventMessageDelta, id)
	queue := func(p string) string {
		t.Helper()
		var res rpc.SessionSendResult
		c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: p, AgentType: scripted.ID}, &res)
		if res.Status != rpc.SendQueued {
			t.Fatalf("send during a turn = %+v", res)
		}
		return res.QueueID
	}
	a, b := queue("A"), queue("B")
	if q := call(rpc.MethodQueueList, rpc.QueueParams{SessionID: id}); !slices.Equal(prompts(q.Queue), []string{"A", "B"}) {
		t.Fatalf("list = %+v", q)
	}
	if q := call(rpc.MethodQueueUpdate, rpc.QueueUpdateParams{SessionID: id, QueueID: a, Prompt: "A2"}); !slices.Equal(prompts(q.Queue), []string{"A2", "B"}) {
		t.Fatalf("update = %+v", q)
	}
	if q := call(rpc.MethodQueueMove, rpc.QueueMoveParams{SessionID: id, QueueID: b, Position: 1}); !slices.Equal(prompts(q.Queue), []string{"B", "A2"}) {
		t.Fatalf("move = %+v", q)
	}
	if q := call(rpc.MethodQueueRemove, rpc.QueueItemParams{SessionID: id, QueueID: a}); !slices.Equal(prompts(q.Queue), []string{"B"}) {
		t.Fatalf("remove = %+v", q)
	}
	_, rerr = c.Call(ctx, rpc.MethodQueueRemove, rpc.QueueItemParams{SessionID: id, QueueID: a})
	wantError(t, "remove of a removed item", rerr, rpc.CodeQueueItemGone)
	if q := call(rpc.MethodQueueClear, rpc.QueueParams{SessionID: id}); len(q.Items) != 0 || q.Paused {
		t.Fatalf("clear = %+v", q)
	}
	no := false
	_, rerr = c.Call(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: "x", Queue: &no})
	wantError(t, "send with queue:false during a turn", rerr, rpc.CodeSessionBusy)

	var steered rpc.SteerResult
	c.MustCall(ctx, rpc.MethodSessionSteer, rpc.SteerParams{SessionID: id, Prompt: "look here", AgentType: scripted.ID}, &steered)
	if steered.Status != "steered" || steered.SessionID != id {
		t.Fatalf("steer = %+v", steered)
	}
	if err := c.Until(ctx, func(ns []Notification) bool {
		return slices.Contains(saidLive(messageEvents(t, ns)), "user: look here")
	}); err != nil {
		t.Fatalf("the steering never showed in the turn: %v", err)
	}

	queue("C")
	c.MustCall(ctx, rpc.MethodSessionInput, rpc.SessionInputParams{SessionID: id, Key: "escape"}, nil)
	paused := awaitQueue(t, ctx, c, id, func(q rpc.Queue) bool { return q.Paused })
	if paused.PauseReason != rpc.PauseInterrupted {
		t.Fatalf("the queue after an interrupt = %+v", paused.Queue)
	}
	if q := call(rpc.MethodQueueResume, rpc.QueueParams{SessionID: id}); len(q.Items) != 0 || q.Paused {
		t.Fatalf("resume = %+v, want C started", q)
	}
	await(t, ctx, c, rpc.EventTurnCompleted, id)

	for _, bad := range []struct {
		method string
		params any
		code   int64
	}{
		{rpc.MethodQueueList, rpc.QueueParams{}, rpc.CodeInvalidParams},
		{rpc.MethodQueueUpdate, rpc.QueueUpdateParams{SessionID: id, QueueID: a}, rpc.CodeInvalidParams},
		{rpc.MethodQueueMove, rpc.QueueMoveParams{SessionID: id, QueueID: a, Position: -1}, rpc.CodeInvalidParams},
		{rpc.MethodQueueClear, rpc.QueueParams{SessionID: "a/b"}, rpc.CodeInvalidParams},
		{rpc.MethodQueueResume, rpc.QueueParams{}, rpc.CodeInvalidParams},
		{rpc.MethodSessionSteer, rpc.SteerParams{SessionID: "8c2f3b1e-5d4a-4c7e-9f1a-2b3c4d5e6f70", Prompt: "p"}, rpc.CodeSessionNotFound},
	} {
		_, rerr := c.Call(ctx, bad.method, bad.params)
		wantError(t, bad.method, rerr, bad.code)
	}
	if st := state(t, ctx, c, id); st.Status != rpc.StatusRunning || !st.IsRunning {
		t.Errorf("the session after the bad calls = %+v", st)
	}
}
