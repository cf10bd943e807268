package contracttests

import (
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// Steering: input sent into a running turn with session/steer reaches the
// model within that turn (it answers it before the turn's one terminal
// event), where the registry record says supportsSteering; elsewhere
// session/steer is refused with -32602 naming the runtime, and the turn
// goes on untouched. With no turn running it is -32016.
func scenarioSteer(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id := r.start(t, ctx, c, w, "")
	steer := rpc.SteerParams{SessionID: id, Prompt: "steered: look here", AgentType: r.rt.id}

	after := r.send(t, ctx, c, id, "slow: talk")
	await(t, ctx, c, rpc.EventMessageDelta, id)
	raw, rerr := c.Call(ctx, rpc.MethodSessionSteer, steer)
	if !r.record.SupportsSteering {
		if rerr == nil || rerr.Code != rpc.CodeInvalidParams || !strings.Contains(rerr.Message, r.rt.id) {
			t.Fatalf("session/steer on %s, which cannot steer = %s, %v; want -32602 naming it", r.rt.id, raw, rerr)
		}
		c.MustCall(ctx, rpc.MethodSessionInput, rpc.SessionInputParams{SessionID: id, Key: "escape", AgentType: r.rt.id}, nil)
		r.end(t, ctx, c, id, after)
		return
	}
	if rerr != nil {
		t.Fatalf("session/steer: %v", rerr)
	}
	end, evs := r.end(t, ctx, c, id, after)
	if end.Type() != rpc.EventTurnCompleted {
		t.Fatalf("the steered turn ended with %s (events %v)", end, types(evs))
	}
	if n := count(evs, isTerminal); n != 1 {
		t.Errorf("the steered turn had %d terminal events: %v", n, types(evs))
	}
	said := saidLive(messageEvents(t, evs))
	if !slices.Contains(said, "assistant: echo: steered: look here") {
		t.Errorf("within the steered turn the session said %q: the model did not answer the steering", said)
	}
	if h := r.lastHistory(t); !strings.Contains(h, "steered: look here") {
		t.Errorf("the model's last request did not carry the steering:\n%s", h)
	}
	_, rerr = c.Call(ctx, rpc.MethodSessionSteer, steer)
	if rerr == nil || rerr.Code != rpc.CodeNoTurn {
		t.Errorf("session/steer with no turn running = %v, want -32016", rerr)
	}
}
