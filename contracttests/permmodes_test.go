package contracttests

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// The registry lists the permission modes each runtime accepts, and a mode
// its runtime does not accept is the caller's mistake (-32602, naming what
// is accepted), refused before any process starts. The scripted runtime
// accepts default, bypassPermissions and interactive, not plan or acceptEdits.
func TestPermissionModeUnsupportedByRuntime(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	rt := init.Capabilities.RuntimeRegistry.Runtimes[0]
	want := []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionBypass, rpc.PermissionInteractive}
	if rt.ID != scripted.ID || !slices.Equal(rt.PermissionModes, want) {
		t.Fatalf("registry: %s permissionModes %v, want %v", rt.ID, rt.PermissionModes, want)
	}
	w := e.workspace(ctx, c)

	calls := []struct {
		method string
		params any
	}{
		{rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID, PermissionMode: rpc.PermissionPlan}},
		// The default runtime, not named.
		{rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, PermissionMode: rpc.PermissionAcceptEdits}},
		// A send that would create the session, with its first turn.
		{rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: w.ID, Prompt: script(), AgentType: scripted.ID,
			PermissionMode: rpc.PermissionPlan}},
		{rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID,
			PermissionMode: rpc.PermissionPlan, Prompt: script()}},
	}
	for _, call := range calls {
		what := fmt.Sprintf("%s %+v", call.method, call.params)
		_, rerr := c.Call(ctx, call.method, call.params)
		wantError(t, what, rerr, rpc.CodeInvalidParams)
		d := errData(t, rerr)
		var supported []rpc.PermissionMode
		list, _ := d["supported"].([]any)
		for _, m := range list {
			s, _ := m.(string)
			supported = append(supported, rpc.PermissionMode(s))
		}
		if d["field"] != "permission_mode" || d["agent_type"] != scripted.ID || d["reason"] == "" ||
			(d["value"] != string(rpc.PermissionPlan) && d["value"] != string(rpc.PermissionAcceptEdits)) ||
			!slices.Equal(supported, want) {
			t.Errorf("%s: data %v, want field permission_mode, the value, agent_type %s and supported %v", what, d, scripted.ID, want)
		}
	}
	if pids := children(t, w.Path); len(pids) != 0 {
		t.Errorf("refused permission modes started processes %v", pids)
	}
	var list rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: scripted.ID}, &list)
	if len(list.Sessions) != 0 {
		t.Errorf("refused permission modes left sessions %+v", list.Sessions)
	}

	// A mode the runtime accepts does what it says: bypassPermissions runs
	// the tool without asking.
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID,
		PermissionMode: rpc.PermissionBypass}, &res)
	if res.Status != rpc.StartStarted {
		t.Fatalf("session/start with bypassPermissions = %+v", res)
	}
	send(t, ctx, c, res.SessionID, script(map[string]any{"permission": map[string]any{"tool": "Bash", "target": "make", "kind": "bash_command"}}))
	await(t, ctx, c, rpc.EventTurnCompleted, res.SessionID)
	if n := count(c.SessionEvents(res.SessionID), func(n Notification) bool { return n.Type() == rpc.EventPermission }); n != 0 {
		t.Errorf("bypassPermissions asked %d times", n)
	}
}
