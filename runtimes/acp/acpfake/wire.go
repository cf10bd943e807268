package acpfake

import (
	"encoding/json"
	"io"
	"sync"
)

// JSON-RPC error codes the fake answers with, as Gemini does.
const (
	codeParseError     = -32700
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// inbound is one line read from the client: a request, a notification, or
// the client's response to one of the agent's requests.
type inbound struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

func (m *inbound) isResponse() bool { return len(m.ID) > 0 && m.Method == "" }

// outbound is one line the fake writes. JSONRPC is empty with NoJSONRPC.
type outbound struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidParams(msg string) *rpcError { return &rpcError{Code: codeInvalidParams, Message: msg} }

// wire writes whole lines to stdout, one Write each, so that concurrent
// prompts never interleave within a line and a crash never leaves half of
// one.
type wire struct {
	mu        sync.Mutex
	w         io.Writer
	noJSONRPC bool
}

func (w *wire) send(m outbound) {
	if !w.noJSONRPC {
		m.JSONRPC = "2.0"
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // every outbound value is built from marshalable types
	}
	w.raw(b)
}

// raw writes b as one line, whatever it holds (GARBAGE uses it directly).
func (w *wire) raw(b []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.w.Write(append(b, '\n'))
}

func (w *wire) reply(id json.RawMessage, result any) {
	w.send(outbound{ID: id, Result: result})
}

func (w *wire) fail(id json.RawMessage, e *rpcError) {
	w.send(outbound{ID: id, Error: e})
}

func (w *wire) notify(method string, params any) {
	w.send(outbound{Method: method, Params: params})
}

// update sends one session/update notification.
func (w *wire) update(sessionID string, u any) {
	w.notify("session/update", sessionNotification{SessionID: sessionID, Update: u})
}

// The ACP payloads the fake sends, in Gemini's shapes.

type sessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

type textContent struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

func text(s string) textContent { return textContent{Type: "text", Text: s} }

// chunk is a user_message_chunk, agent_message_chunk or agent_thought_chunk.
type chunk struct {
	SessionUpdate string      `json:"sessionUpdate"`
	Content       textContent `json:"content"`
}

// toolCall is the toolCall of a permission request, and the body of the
// tool_call and tool_call_update notifications.
type toolCall struct {
	SessionUpdate string         `json:"sessionUpdate,omitempty"`
	ToolCallID    string         `json:"toolCallId"`
	Status        string         `json:"status"`
	Title         string         `json:"title"`
	Content       []toolContent  `json:"content"`
	Locations     []toolLocation `json:"locations"`
	Kind          string         `json:"kind"`
}

// toolContent is {type:content, content} or {type:diff, path, oldText, newText}.
type toolContent struct {
	Type    string       `json:"type"`
	Content *textContent `json:"content,omitempty"`
	Path    string       `json:"path,omitempty"`
	OldText *string      `json:"oldText,omitempty"`
	NewText string       `json:"newText,omitempty"`
}

func contentText(s string) toolContent {
	t := text(s)
	return toolContent{Type: "content", Content: &t}
}

type toolLocation struct {
	Path string `json:"path"`
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// Gemini's option ids for an edit or exec tool.
const (
	optAlways = "proceed_always"
	optOnce   = "proceed_once"
	optReject = "cancel"
)

var permissionOptions = []permissionOption{
	{OptionID: optAlways, Name: "Allow for this session", Kind: "allow_always"},
	{OptionID: optOnce, Name: "Allow", Kind: "allow_once"},
	{OptionID: optReject, Name: "Reject", Kind: "reject_once"},
}

type permissionRequest struct {
	SessionID string             `json:"sessionId"`
	Options   []permissionOption `json:"options"`
	ToolCall  toolCall           `json:"toolCall"`
}

// permissionResponse is the client's answer:
// {outcome:{outcome:"selected", optionId}} or {outcome:{outcome:"cancelled"}}.
type permissionResponse struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

type mode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// The modes the fake offers: Gemini's default (ask) and yolo (never ask).
const (
	modeDefault = "default"
	modeYolo    = "yolo"
)

var modes = []mode{
	{ID: modeDefault, Name: "Default", Description: "Prompts for approval"},
	{ID: modeYolo, Name: "YOLO", Description: "Auto-approves all actions"},
}

type sessionModes struct {
	AvailableModes []mode `json:"availableModes"`
	CurrentModeID  string `json:"currentModeId"`
}

type sessionResult struct {
	SessionID string       `json:"sessionId,omitempty"` // session/new only
	Modes     sessionModes `json:"modes"`
}

// promptResult is session/prompt's reply; usage sits in _meta.quota as
// Gemini puts it.
type promptResult struct {
	StopReason string     `json:"stopReason"`
	Meta       *quotaMeta `json:"_meta,omitempty"`
}

type quotaMeta struct {
	Quota struct {
		TokenCount struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"token_count"`
	} `json:"quota"`
}

// Requests' params.

type initializeParams struct {
	ProtocolVersion int `json:"protocolVersion"`
}

type newSessionParams struct {
	Cwd string `json:"cwd"`
}

type loadSessionParams struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
}

type setModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

type promptParams struct {
	SessionID string `json:"sessionId"`
	Prompt    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"prompt"`
}

type cancelParams struct {
	SessionID string `json:"sessionId"`
}
