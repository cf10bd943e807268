package openrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

func newTestValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := NewValidator(generate(t))
	if err != nil {
		t.Fatalf("NewValidator: %v", err)
	}
	return v
}

func marshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit marshals v, applies change to its generic form and marshals it again.
func edit(t *testing.T, v any, change func(map[string]any)) json.RawMessage {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(marshal(t, v), &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	return marshal(t, m)
}

func sampleInitializeResult() rpc.InitializeResult {
	server := rpc.ServerInfo{Name: "cdevd", Version: "0.1.0", ID: "3f9c1b0e5a7d4c2e8b6a9f1d0c3e5a7b", Hostname: "devbox"}
	return rpc.InitializeResult{
		ProtocolVersion: rpc.ProtocolVersion,
		ServerInfo:      server,
		ServerInfoSnake: server,
		ClientID:        "owner:c1",
		Device:          rpc.DeviceInfo{ID: "owner", Name: "owner", Scope: "control"},
		Epoch:           "e1",
		Capabilities: rpc.ServerCapabilities{Features: []string{rpc.FeatureFiles},
			SupportedAgents: []string{"claude"},
			RuntimeRegistry: rpc.RuntimeRegistry{
				SchemaVersion:  rpc.RegistrySchemaVersion,
				GeneratedAt:    "2025-01-02T03:04:05.000Z",
				DefaultRuntime: "claude",
				Routing: rpc.Routing{
					AgentTypeField:    "agent_type",
					DefaultAgentType:  "claude",
					RequiredOnMethods: rpc.RoutedMethods,
				},
				Runtimes: []rpc.Runtime{{
					ID:                    "claude",
					DisplayName:           "Claude Code",
					Status:                rpc.RuntimeActive,
					SessionListSource:     rpc.ListWorkspaceHistory,
					SessionMessagesSource: rpc.ScopeWorkspace,
					SessionWatchSource:    rpc.ScopeWorkspace,
					SupportsResume:        true,
					PermissionModes:       []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionPlan},
					Attachments:           []rpc.AttachmentKind{rpc.AttachImage},
					Methods: rpc.RuntimeMethods{
						History: rpc.MethodHistory, Messages: rpc.MethodMessages, Watch: rpc.MethodWatch,
						Unwatch: rpc.MethodUnwatch, Start: rpc.MethodSessionStart, Send: rpc.MethodSessionSend,
						Stop: rpc.MethodSessionStop, Input: rpc.MethodSessionInput, Respond: rpc.MethodSessionRespond,
					},
					Availability: rpc.Availability{Installed: true, Version: "2.1.197"},
				}},
			},
		},
	}
}

func sampleMessageEvent() rpc.MessageEvent {
	return rpc.MessageEvent{
		EventHeader: rpc.EventHeader{
			SessionID: "s1", WorkspaceID: "w1", AgentType: "claude",
			Timestamp: "2025-01-02T03:04:05.123Z", Seq: 1, Epoch: "e1",
		},
		ID:   "m1",
		Type: rpc.MessageAssistant,
		UUID: "u1",
		Message: rpc.MessageBody{
			Role: "assistant",
			Content: []rpc.ContentBlock{
				{Type: rpc.BlockText, Text: "hi"},
				{Type: rpc.BlockToolUse, ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
				{Type: rpc.BlockToolResult, ToolUseID: "t1", Content: json.RawMessage(`"a.txt"`)},
			},
			Usage: &rpc.Usage{InputTokens: 3, OutputTokens: 5},
		},
	}
}

func TestValidateResult(t *testing.T) {
	v := newTestValidator(t)
	sample := sampleInitializeResult()
	for _, tc := range []struct {
		name    string
		result  json.RawMessage
		wantErr string // empty: valid
	}{
		{"complete", marshal(t, sample), ""},
		{"unknown field ignored", edit(t, sample, func(m map[string]any) { m["future"] = 1 }), ""},
		{"missing required", edit(t, sample, func(m map[string]any) { delete(m, "epoch") }), "epoch"},
		{"wrong type", edit(t, sample, func(m map[string]any) { m["clientId"] = 7 }), "clientId"},
		{"nested value outside enum", edit(t, sample, func(m map[string]any) {
			m["capabilities"].(map[string]any)["runtimeRegistry"].(map[string]any)["runtimes"].([]any)[0].(map[string]any)["status"] = "retired"
		}), "runtimes/0/status"},
		{"permission mode outside enum", edit(t, sample, func(m map[string]any) {
			m["capabilities"].(map[string]any)["runtimeRegistry"].(map[string]any)["runtimes"].([]any)[0].(map[string]any)["permissionModes"] = []any{"sometimes"}
		}), "permissionModes/0"},
		{"bad date-time", edit(t, sample, func(m map[string]any) {
			m["capabilities"].(map[string]any)["runtimeRegistry"].(map[string]any)["generatedAt"] = "yesterday"
		}), "date-time"},
		{"null for an array", marshal(t, rpc.InitializeResult{}), "supportedAgents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.ValidateResult(rpc.MethodInitialize, tc.result)
			checkErr(t, err, tc.wantErr)
		})
	}
}

func TestValidateResultOfEveryShape(t *testing.T) {
	v := newTestValidator(t)
	checkErr(t, v.ValidateResult(rpc.MethodSessionSend,
		marshal(t, rpc.SessionSendResult{Status: "sent", SessionID: "s1", AgentType: "claude"})), "")
	checkErr(t, v.ValidateResult(rpc.MethodSessionSend,
		marshal(t, rpc.SessionSendResult{Status: "refused", SessionID: "s1", AgentType: "claude"})), "/status")
	checkErr(t, v.ValidateResult(rpc.MethodDiscover, json.RawMessage(`{"openrpc":"1.3.2","info":{"title":"t","version":"1"},"methods":[]}`)), "")
	checkErr(t, v.ValidateResult(rpc.MethodDiscover, json.RawMessage(`{"openrpc":"1.3.2"}`)), "missing properties")
	checkErr(t, v.ValidateResult(rpc.MethodDiscover, json.RawMessage(`[]`)), "object")
	checkErr(t, v.ValidateResult(rpc.MethodInitialized, json.RawMessage(`{}`)), "no result")
	checkErr(t, v.ValidateResult("session/teleport", json.RawMessage(`{}`)), "not in the document")
}

func TestValidateNotification(t *testing.T) {
	v := newTestValidator(t)
	method := rpc.EventPrefix + rpc.EventMessage
	event := sampleMessageEvent()
	checkErr(t, v.ValidateNotification(method, marshal(t, event)), "")
	checkErr(t, v.ValidateNotification(method, edit(t, event, func(m map[string]any) { delete(m, "seq") })), "seq")
	checkErr(t, v.ValidateNotification(method, edit(t, event, func(m map[string]any) {
		m["message"].(map[string]any)["content"].([]any)[1].(map[string]any)["input"] = "ls"
	})), "object")

	cost := 0.25
	turn := rpc.TurnCompletedEvent{EventHeader: event.EventHeader, StopReason: "end_turn", CostUSD: &cost}
	checkErr(t, v.ValidateNotification(rpc.EventPrefix+rpc.EventTurnCompleted, marshal(t, turn)), "")
	checkErr(t, v.ValidateNotification(rpc.EventPrefix+rpc.EventHeartbeat,
		marshal(t, rpc.HeartbeatEvent{ServerTime: "2025-01-02T03:04:05.000Z", Sequence: 1})), "")
	// One spelling of RFC 3339 only: UTC with milliseconds.
	for _, at := range []string{"2025-01-02T03:04:05Z", "2025-01-02T03:04:05.123456Z", "2025-01-02T05:04:05.000+02:00"} {
		checkErr(t, v.ValidateNotification(rpc.EventPrefix+rpc.EventHeartbeat,
			marshal(t, rpc.HeartbeatEvent{ServerTime: at, Sequence: 1})), "does not match pattern")
	}
	// A content block is one of the kinds, keyed by type.
	checkErr(t, v.ValidateNotification(method, edit(t, event, func(m map[string]any) {
		m["message"].(map[string]any)["content"].([]any)[0].(map[string]any)["type"] = "video"
	})), "oneOf")

	checkErr(t, v.ValidateNotification(rpc.MethodSessionStart, json.RawMessage(`{"workspace_id":"w1"}`)), "not a server notification")
}

func TestValidateParams(t *testing.T) {
	v := newTestValidator(t)
	checkErr(t, v.ValidateParams(rpc.MethodSessionStart,
		marshal(t, rpc.SessionStartParams{WorkspaceID: "w1", PermissionMode: rpc.PermissionPlan})), "")
	checkErr(t, v.ValidateParams(rpc.MethodSessionStart, json.RawMessage(`{"prompt":"hi"}`)), "missing required workspace_id")
	checkErr(t, v.ValidateParams(rpc.MethodSessionStart, json.RawMessage(`{"workspace_id":"w1","permission_mode":"yolo"}`)), "permission_mode")
	checkErr(t, v.ValidateParams(rpc.MethodSessionStart, json.RawMessage(`["w1"]`)), "object of named params")

	// Methods without required params accept absent params.
	checkErr(t, v.ValidateParams(rpc.MethodWorkspaceList, nil), "")
	checkErr(t, v.ValidateParams(rpc.MethodInitialize, json.RawMessage(`null`)), "")
	checkErr(t, v.ValidateParams(rpc.MethodInitialized, json.RawMessage(`{}`)), "")

	checkErr(t, v.ValidateParams(rpc.EventPrefix+rpc.EventHeartbeat, json.RawMessage(`{}`)), "server notification")
}

func TestNewValidatorRejectsBadDocuments(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"not json", `{`, "parse document"},
		{"duplicate", `{"methods":[{"name":"a","params":[]},{"name":"a","params":[]}]}`, "listed twice"},
		{"param by $ref", `{"methods":[{"name":"a","params":[{"$ref":"#/components/contentDescriptors/x"}]}]}`, "not an inline content descriptor"},
		{"dangling $ref", `{"methods":[{"name":"a","params":[],"result":{"name":"r","schema":{"$ref":"#/components/schemas/Nope"}}}]}`, "Nope"},
		{"invalid schema", `{"methods":[{"name":"a","params":[{"name":"p","schema":{"type":"nonsense"}}]}]}`, "metaschema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewValidator([]byte(tc.doc))
			checkErr(t, err, tc.want)
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Errorf("no error, want one mentioning %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("error %v does not mention %q", err, want)
	}
}

func TestValidateError(t *testing.T) {
	v := newTestValidator(t)
	data := func(e *rpc.Error) json.RawMessage { return marshal(t, e.Data) }
	for _, e := range []*rpc.Error{
		rpc.InvalidParams("limit", "must be positive"),
		rpc.UnsupportedPermissionMode(rpc.PermissionAcceptEdits, "codex", []rpc.PermissionMode{rpc.PermissionDefault}),
		rpc.RuntimeChoosesIDs("s1", "codex"),
		rpc.SessionLost("s1", "gemini"),
		rpc.SessionNotFound("s1"),
		rpc.SessionBusy("s1", "a turn is running"),
		rpc.RequestNotFound("s1", ""),
		rpc.WorkspaceNotFound("ws_1"),
		rpc.InvalidPath("/x", "not a directory"),
		rpc.PathOutside("/x"),
		{Code: rpc.CodeInvalidParams, Message: "unknown agent_type", Data: map[string]any{
			"agent_type": "x", "method": "session/start", "supported_agent_types": []string{"claude"}}},
		{Code: rpc.CodeInvalidParams, Message: "disabled", Data: map[string]any{
			"agent_type": "codex", "method": "session/start", "supported_agent_types": []string{"claude", "codex"},
			"status": "disabled", "reason": "codex not found on PATH"}},
	} {
		checkErr(t, v.ValidateError(e.Code, data(e)), "")
	}
	checkErr(t, v.ValidateError(rpc.CodeOverloaded, nil), "")
	checkErr(t, v.ValidateError(rpc.CodeOverloaded, json.RawMessage(`{"x":1}`)), "gives it none")
	checkErr(t, v.ValidateError(rpc.CodeSessionNotFound, json.RawMessage(`{"reason":"gone"}`)), "session_id")
	checkErr(t, v.ValidateError(rpc.CodeInvalidParams, json.RawMessage(`{"agent_type":"x"}`)), "anyOf")
}
