package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
)

// JSON-RPC 2.0 and cdevd error codes. Codes in -32000..-32099 are cdevd's own
// and stable: clients switch on them.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodeOverloaded     = -32001 // too many requests in flight on this connection
	CodeNotInitialized = -32002 // a method other than initialize before initialize
	CodeForbidden      = -32003 // data {method, scope}: the connection's scope may not call the method

	CodeSessionNotFound = -32010 // data {session_id}
	CodeSessionBusy     = -32011 // data {session_id, reason}
	CodeRequestNotFound = -32013 // data {session_id, request_id}: nothing pending to answer
	CodeRevertConflict  = -32014 // data {session_id, turn, files}: changed since the turn; force overwrites
	CodeQueueItemGone   = -32015 // data {session_id, queue_id, reason}: not in the queue (it ran, or never was)
	CodeNoTurn          = -32016 // data {session_id}: session/steer with no turn running

	CodeWorkspaceNotFound = -32020 // data {workspace_id}
	CodeInvalidPath       = -32021 // data {path, reason}
	CodePathOutside       = -32022 // data {path}
	CodeNotGitRepo        = -32023 // data {workspace_id, path}: git/* in a folder outside any repository
)

// Error is a JSON-RPC error object. Handlers return it (possibly wrapped with
// %w); the transport converts it to the wire error once, with errors.As, so a
// wrapped Error keeps its code.
type Error struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if e.Data != nil {
		if b, err := json.Marshal(e.Data); err == nil {
			return fmt.Sprintf("%s (code %d, data %s)", e.Message, e.Code, b)
		}
	}
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// AsError returns the *Error inside err, or an internal error that carries
// err's text when err is not one.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

// Errorf builds an *Error with a formatted message and optional data.
func Errorf(code int64, data any, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Data: data}
}

// InvalidParams reports a bad field in a request's params.
func InvalidParams(field, reason string) *Error {
	return &Error{
		Code:    CodeInvalidParams,
		Message: fmt.Sprintf("invalid params: %s: %s", field, reason),
		Data:    map[string]any{"field": field, "reason": reason},
	}
}

// UnsupportedPermissionMode reports a permission_mode the routed runtime
// does not accept. The data names what it does accept, so a client can
// fall back without reading the registry again.
func UnsupportedPermissionMode(mode PermissionMode, agentType string, supported []PermissionMode) *Error {
	e := InvalidParams("permission_mode", fmt.Sprintf("%s does not accept %q", agentType, mode))
	data := e.Data.(map[string]any)
	data["value"], data["agent_type"] = string(mode), agentType
	data["supported"] = append([]PermissionMode{}, supported...) // [] rather than null when none
	return e
}

// RuntimeChoosesIDs refuses a client's id for a new session of a runtime
// whose CLI chooses every session's id (Codex, Gemini): there is no way to
// run the session under it. The data says what to do instead.
func RuntimeChoosesIDs(sessionID, agentType string) *Error {
	e := InvalidParams("session_id", fmt.Sprintf(
		"no stored %s session has this id, and %s chooses new sessions' ids: omit session_id to start one (session/start returns its id)",
		agentType, agentType))
	data := e.Data.(map[string]any)
	data["value"], data["agent_type"] = sessionID, agentType
	return e
}

// SessionLost reports a session whose runtime kept nothing to resume: its
// process ended before its first turn, and its CLI keeps no session
// without one.
func SessionLost(sessionID, agentType string) *Error {
	return &Error{Code: CodeSessionNotFound, Message: "session not found: it ended before its first turn",
		Data: map[string]any{"session_id": sessionID, "agent_type": agentType,
			"reason": "ended_before_first_turn"}}
}

// SessionNotFound reports an unknown session id.
func SessionNotFound(sessionID string) *Error {
	return &Error{Code: CodeSessionNotFound, Message: "session not found",
		Data: map[string]any{"session_id": sessionID}}
}

// SessionBusy reports a session that cannot take the request now.
func SessionBusy(sessionID, reason string) *Error {
	return &Error{Code: CodeSessionBusy, Message: "session busy: " + reason,
		Data: map[string]any{"session_id": sessionID, "reason": reason}}
}

// RequestNotFound reports an answer to a prompt that is not pending.
func RequestNotFound(sessionID, requestID string) *Error {
	return &Error{Code: CodeRequestNotFound, Message: "no pending request to answer",
		Data: map[string]any{"session_id": sessionID, "request_id": requestID}}
}

// QueueItemGone reports a queue edit on an item the queue no longer holds:
// ran (its turn started), or unknown (removed, cleared, or never queued).
func QueueItemGone(sessionID, queueID string, ran bool) *Error {
	reason, msg := "unknown", "no such item in the session's queue"
	if ran {
		reason, msg = "ran", "the queued prompt already ran"
	}
	return &Error{Code: CodeQueueItemGone, Message: msg,
		Data: map[string]any{"session_id": sessionID, "queue_id": queueID, "reason": reason}}
}

// NoTurn reports input meant for a running turn when none runs.
func NoTurn(sessionID string) *Error {
	return &Error{Code: CodeNoTurn, Message: "no turn is running: send the prompt with session/send",
		Data: map[string]any{"session_id": sessionID}}
}

// WorkspaceNotFound reports an unknown workspace id.
func WorkspaceNotFound(workspaceID string) *Error {
	return &Error{Code: CodeWorkspaceNotFound, Message: "workspace not found",
		Data: map[string]any{"workspace_id": workspaceID}}
}

// InvalidPath reports a path that cannot be used as a workspace.
func InvalidPath(path, reason string) *Error {
	return &Error{Code: CodeInvalidPath, Message: "invalid path: " + reason,
		Data: map[string]any{"path": path, "reason": reason}}
}

// PathOutside reports a path that is not inside any workspace.
func PathOutside(path string) *Error {
	return &Error{Code: CodePathOutside, Message: "path outside workspace",
		Data: map[string]any{"path": path}}
}

// NotGitRepo reports a git method called for a workspace whose folder is in
// no git repository. The message says "not a git repository", which the iOS
// app matches to offer its Git setup wizard (git/init).
func NotGitRepo(workspaceID, path string) *Error {
	return &Error{Code: CodeNotGitRepo, Message: "not a git repository: " + path + " (set one up with git/init)",
		Data: map[string]any{"workspace_id": workspaceID, "path": path}}
}

// Overloaded is returned when a connection has too many requests in flight.
var Overloaded = &Error{Code: CodeOverloaded, Message: "server overloaded; retry later"}

// NotInitialized is returned for any method called before initialize.
var NotInitialized = &Error{Code: CodeNotInitialized, Message: "not initialized"}

// Forbidden refuses a method that acts to a connection whose device may
// only watch.
func Forbidden(method, scope string) *Error {
	return &Error{Code: CodeForbidden,
		Message: fmt.Sprintf("forbidden: %s needs the control scope; this device has the %s scope", method, scope),
		Data:    map[string]any{"method": method, "scope": scope}}
}

// RuntimeFailed reports an adapter's failure for a known, enabled runtime
// as the contract's InternalError, with the runtime and method in its data.
func RuntimeFailed(method, agentType string, err error) *Error {
	return &Error{Code: CodeInternalError,
		Message: fmt.Sprintf("%s failed: %v", agentType, err),
		Data:    map[string]any{"agent_type": agentType, "method": method, "reason": err.Error()}}
}
