package contracttests

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

func TestRoutingUnknownAgentType(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, c)
	calls := []struct {
		method string
		params any
	}{
		{rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: "nope"}},
		{rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: w.ID, Prompt: "hi", AgentType: "nope"}},
		{rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: "nope"}},
	}
	for _, call := range calls {
		_, rerr := c.Call(ctx, call.method, call.params)
		wantError(t, call.method+" with agent_type nope", rerr, rpc.CodeInvalidParams)
		d := errData(t, rerr)
		var supported []string
		for _, s := range d["supported_agent_types"].([]any) {
			supported = append(supported, s.(string))
		}
		if d["agent_type"] != "nope" || d["method"] != call.method || !slices.Equal(supported, init.Capabilities.SupportedAgents) {
			t.Errorf("%s: data %v, want agent_type nope, the method, and supported_agent_types %v",
				call.method, d, init.Capabilities.SupportedAgents)
		}
	}
}

func TestRoutingDisabledRuntime(t *testing.T) {
	e := startEnv(t, func(_ *daemon.Config, sc *scripted.Config) { sc.Bin = "" })
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	rt := init.Capabilities.RuntimeRegistry.Runtimes[0]
	if rt.ID != scripted.ID || rt.Status != rpc.RuntimeDisabled || rt.Availability.Installed || rt.Availability.Reason == "" {
		t.Fatalf("runtime without a CLI = %+v, want disabled, not installed, with a reason", rt)
	}
	w := e.workspace(ctx, c)
	_, rerr := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID})
	wantError(t, "session/start on a disabled runtime", rerr, rpc.CodeInvalidParams)
	d := errData(t, rerr)
	if d["agent_type"] != scripted.ID || d["method"] != rpc.MethodSessionStart || d["status"] != "disabled" ||
		d["reason"] != rt.Availability.Reason || d["supported_agent_types"] == nil {
		t.Errorf("data %v, want agent_type, method, supported_agent_types, status disabled and reason %q", d, rt.Availability.Reason)
	}
	// Without agent_type the default runtime is used, and refused the same way.
	_, rerr = c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID})
	wantError(t, "session/start on the disabled default runtime", rerr, rpc.CodeInvalidParams)
	if len(children(t, w.Path)) != 0 {
		t.Errorf("a disabled runtime started a process")
	}
}

// A runtime turned off by configuration (--disable-runtime) says so and why,
// though its CLI is installed, and is refused like a missing one.
func TestRoutingRuntimeDisabledByConfig(t *testing.T) {
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) {
		dc.Disabled = map[string]string{scripted.ID: "under maintenance"}
	})
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	rt := init.Capabilities.RuntimeRegistry.Runtimes[0]
	if rt.Status != rpc.RuntimeDisabled || !rt.Availability.Installed || rt.Availability.Reason != "under maintenance" {
		t.Fatalf("runtime disabled by config = %+v", rt)
	}
	w := e.workspace(ctx, c)
	_, rerr := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID})
	wantError(t, "session/start on a runtime disabled by config", rerr, rpc.CodeInvalidParams)
	if d := errData(t, rerr); d["status"] != "disabled" || d["reason"] != "under maintenance" {
		t.Errorf("data %v", d)
	}
}

// A runtime whose CLI answers --version but dies at start is known and
// enabled, yet failing: -32603 with the runtime's context.
func TestRoutingFailingRuntime(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scripted-broken")
	sh := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'scripted 1.0.0'; exit 0; fi\necho 'not logged in' >&2\nexit 3\n"
	if err := os.WriteFile(bin, []byte(sh), 0o755); err != nil {
		t.Fatal(err)
	}
	e := startEnv(t, func(_ *daemon.Config, sc *scripted.Config) { sc.Bin = bin })
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	if st := init.Capabilities.RuntimeRegistry.Runtimes[0].Status; st != rpc.RuntimeActive {
		t.Fatalf("status %s, want active (the CLI answers --version)", st)
	}
	w := e.workspace(ctx, c)
	_, rerr := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID})
	wantError(t, "session/start with a CLI that exits at start", rerr, rpc.CodeInternalError)
	d := errData(t, rerr)
	if d["agent_type"] != scripted.ID || d["method"] != rpc.MethodSessionStart || d["reason"] == "" || d["reason"] == nil {
		t.Errorf("data %v, want agent_type, method and reason", d)
	}
	// The failure left nothing behind, and the server still answers.
	awaitNoChildren(t, ctx, w.Path)
	var got rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceGet, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, &got)
	if len(got.Sessions) != 0 {
		t.Errorf("the failed start left sessions behind: %+v", got.Sessions)
	}
}
