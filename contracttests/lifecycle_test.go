package contracttests

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

func TestInitializeShape(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := Dial(t, ctx, e.url, e.token)
	raw, rerr := c.Call(ctx, rpc.MethodInitialize, map[string]any{
		"protocolVersion": "1.0", "clientInfo": map[string]any{"name": "contract", "version": "1"}})
	if rerr != nil {
		t.Fatalf("initialize: %v", rerr)
	}
	var res rpc.InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != "1.0" {
		t.Errorf("protocolVersion = %q, want 1.0", res.ProtocolVersion)
	}
	if res.ServerInfo.Name != "cdevd" || res.ServerInfo.Version == "" || len(res.ServerInfo.ID) != 32 || res.ServerInfo.Hostname == "" {
		t.Errorf("serverInfo = %+v, want name cdevd, a version, a 32-character id and the hostname", res.ServerInfo)
	}
	if res.ServerInfoSnake != res.ServerInfo {
		t.Errorf("server_info = %+v, serverInfo = %+v: want the same", res.ServerInfoSnake, res.ServerInfo)
	}
	if res.ClientID == "" || res.Epoch == "" {
		t.Errorf("clientId %q, epoch %q: want both set", res.ClientID, res.Epoch)
	}

	// The epoch is per server start, the client id per connection.
	other, res2 := Connect(t, ctx, e.url, e.token)
	other.Close()
	if res2.Epoch != res.Epoch {
		t.Errorf("epoch changed between connections: %q, %q", res.Epoch, res2.Epoch)
	}
	if res2.ClientID == res.ClientID {
		t.Errorf("two connections got the same clientId %q", res.ClientID)
	}
}

func TestInitializeRuntimeRegistry(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := Dial(t, ctx, e.url, e.token)
	raw, rerr := c.Call(ctx, rpc.MethodInitialize, rpc.InitializeParams{})
	if rerr != nil {
		t.Fatalf("initialize: %v", rerr)
	}
	var res rpc.InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	reg := res.Capabilities.RuntimeRegistry

	var ids []string
	for _, r := range reg.Runtimes {
		ids = append(ids, r.ID)
	}
	if len(ids) == 0 {
		t.Fatal("runtimeRegistry lists no runtime")
	}
	if !slices.Equal(res.Capabilities.SupportedAgents, ids) {
		t.Errorf("supportedAgents %v != runtimeRegistry runtime ids %v", res.Capabilities.SupportedAgents, ids)
	}
	if reg.SchemaVersion != "1.0" {
		t.Errorf("schemaVersion = %q, want 1.0", reg.SchemaVersion)
	}
	if _, err := time.Parse(time.RFC3339, reg.GeneratedAt); err != nil {
		t.Errorf("generatedAt %q is not RFC 3339: %v", reg.GeneratedAt, err)
	}
	if !slices.Contains(ids, reg.DefaultRuntime) {
		t.Errorf("defaultRuntime %q is not a registered runtime %v", reg.DefaultRuntime, ids)
	}
	if reg.Routing.AgentTypeField != "agent_type" {
		t.Errorf("routing.agentTypeField = %q, want agent_type", reg.Routing.AgentTypeField)
	}
	if !slices.Contains(ids, reg.Routing.DefaultAgentType) {
		t.Errorf("routing.defaultAgentType %q is not a registered runtime %v", reg.Routing.DefaultAgentType, ids)
	}
	want := []string{"session/start", "session/send", "session/stop", "session/input", "session/respond"}
	got := slices.Sorted(slices.Values(reg.Routing.RequiredOnMethods))
	if !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("routing.requiredOnMethods = %v, want %v", reg.Routing.RequiredOnMethods, want)
	}

	// Field by field on the raw JSON: decoding into Go structs would hide
	// a missing boolean behind its zero value.
	var rawReg struct {
		Capabilities struct {
			RuntimeRegistry struct {
				Runtimes []map[string]json.RawMessage `json:"runtimes"`
			} `json:"runtimeRegistry"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &rawReg); err != nil {
		t.Fatal(err)
	}
	required := []string{"id", "displayName", "status", "sessionListSource", "sessionMessagesSource",
		"sessionWatchSource", "requiresWorkspaceActivationOnResume", "requiresSessionResolutionOnNewSession",
		"supportsResume", "supportsInteractiveQuestions", "supportsPermissions", "methods"}
	methodKeys := []string{"history", "messages", "watch", "unwatch", "start", "send", "stop", "input", "respond"}
	for i, rt := range rawReg.Capabilities.RuntimeRegistry.Runtimes {
		for _, f := range required {
			if _, ok := rt[f]; !ok {
				t.Errorf("runtime %s: required field %s missing", ids[i], f)
			}
		}
		var methods map[string]string
		if err := json.Unmarshal(rt["methods"], &methods); err != nil {
			t.Fatalf("runtime %s: methods: %v", ids[i], err)
		}
		for _, k := range methodKeys {
			if methods[k] == "" {
				t.Errorf("runtime %s: methods.%s missing", ids[i], k)
			}
		}
		// Every advertised method exists on this server.
		for k, m := range methods {
			_, rerr := c.Call(ctx, m, map[string]any{})
			if rerr != nil && (rerr.Code == rpc.CodeMethodNotFound || rerr.Code == CodeNoResponse) {
				t.Errorf("runtime %s: methods.%s = %s: %v", ids[i], k, m, rerr)
			}
		}
	}

	for _, r := range reg.Runtimes {
		a := r.Availability
		switch r.Status {
		case rpc.RuntimeActive, rpc.RuntimePreview, rpc.RuntimeDeprecated:
			if !a.Installed || a.Reason != "" {
				t.Errorf("runtime %s is %s but availability = %+v", r.ID, r.Status, a)
			}
		case rpc.RuntimeDisabled:
			if a.Reason == "" {
				t.Errorf("runtime %s is disabled without a reason: %+v", r.ID, a)
			}
		}
		if r.DisplayName == "" {
			t.Errorf("runtime %s has no displayName", r.ID)
		}
	}
}

// In process, the registry says exactly what the scripted runtime is.
func TestInitializeScriptedRuntime(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	_, res := Connect(t, ctx, e.url, e.token)
	reg := res.Capabilities.RuntimeRegistry
	if len(reg.Runtimes) != 1 {
		t.Fatalf("runtimes = %+v, want the scripted one alone", reg.Runtimes)
	}
	r := reg.Runtimes[0]
	if r.ID != "scripted" || r.Status != rpc.RuntimeActive || !r.Availability.Installed || r.Availability.Version == "" {
		t.Errorf("scripted runtime = %+v, want active, installed, with a version", r)
	}
	if reg.DefaultRuntime != "scripted" || reg.Routing.DefaultAgentType != "scripted" {
		t.Errorf("default runtime %q / agent type %q, want scripted", reg.DefaultRuntime, reg.Routing.DefaultAgentType)
	}
	if !r.SupportsPermissions || !r.SupportsInteractiveQuestions || !r.SupportsResume || r.RequiresSessionResolutionOnNewSession {
		t.Errorf("scripted runtime features = %+v, want every feature and ids known at start", r)
	}
}

func TestInitializeClientInfoSpellings(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	for _, key := range []string{"clientInfo", "client_info"} {
		c := Dial(t, ctx, e.url, e.token)
		_, rerr := c.Call(ctx, rpc.MethodInitialize, map[string]any{key: map[string]any{"name": "ios", "version": "2.0"}})
		if rerr != nil {
			t.Errorf("initialize with %s: %v", key, rerr)
		}
		if _, rerr := c.Call(ctx, rpc.MethodWorkspaceList, nil); rerr != nil {
			t.Errorf("after initialize with %s: workspace/list: %v", key, rerr)
		}
	}
}

func TestInitializeTwice(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	_, rerr := c.Call(ctx, rpc.MethodInitialize, rpc.InitializeParams{})
	wantError(t, "second initialize", rerr, rpc.CodeInvalidRequest)
	// The connection stays initialized.
	if _, rerr := c.Call(ctx, rpc.MethodWorkspaceList, nil); rerr != nil {
		t.Errorf("workspace/list after a second initialize: %v", rerr)
	}
}

func TestMethodBeforeInitialize(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := Dial(t, ctx, e.url, e.token)
	for _, m := range []string{rpc.MethodWorkspaceList, rpc.MethodSessionState, rpc.MethodDiscover} {
		_, rerr := c.Call(ctx, m, map[string]any{})
		wantError(t, m+" before initialize", rerr, rpc.CodeNotInitialized)
	}
	// The initialized notification is accepted (and ignored) at any time.
	if err := c.Notify(ctx, rpc.MethodInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	c.Initialize(ctx)
	if _, rerr := c.Call(ctx, rpc.MethodWorkspaceList, nil); rerr != nil {
		t.Errorf("workspace/list after initialize: %v", rerr)
	}
}

func TestDiscover(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	raw, rerr := c.Call(ctx, rpc.MethodDiscover, nil)
	if rerr != nil {
		t.Fatalf("rpc.discover: %v", rerr)
	}
	var got, want bytes.Buffer
	if err := json.Compact(&got, raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&want, openrpc.Document); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("rpc.discover differs from the committed openrpc.json (%d vs %d bytes)", got.Len(), want.Len())
	}
}

func TestHeartbeat(t *testing.T) {
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) { dc.Transport.HeartbeatInterval = 20 * time.Millisecond })
	ctx := testCtx(t)
	c := e.connect(ctx)
	var beats [2]rpc.HeartbeatEvent
	for i := range beats {
		n, err := c.Await(ctx, Event(rpc.EventHeartbeat, ""))
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Decode(&beats[i]); err != nil {
			t.Fatal(err)
		}
	}
	if beats[1].Sequence <= beats[0].Sequence || beats[0].UptimeSeconds < 0 {
		t.Errorf("heartbeats %+v, want increasing sequence numbers", beats)
	}
}

func TestOptOutNotifications(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := Dial(t, ctx, e.url, e.token)
	c.MustCall(ctx, rpc.MethodInitialize, rpc.InitializeParams{ClientInfo: &rpc.ClientInfo{Name: "old-ios"},
		Capabilities: &rpc.ClientCapabilities{OptOutNotificationMethods: []string{"event/message_delta"}}}, nil)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	send(t, ctx, c, id, "hello")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	evs := c.SessionEvents(id)
	if n := count(evs, Event(rpc.EventMessageDelta, id)); n != 0 {
		t.Errorf("got %d message_delta events after opting out", n)
	}
	if n := count(evs, Event(rpc.EventMessage, id)); n != 2 {
		t.Errorf("got %d claude_message events, want the prompt and the answer", n)
	}
}
