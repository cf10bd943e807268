package openrpc

import "github.com/cdevd/cdevd/rpc"

// errorDoc documents one error code. OpenRPC 1.3 error objects allow only
// code, message and data, so the short description of when the error happens
// is the message, and data documents the keys of the stable data object.
type errorDoc struct {
	name    string // the key in components.errors
	message string
	data    map[string]string // data key → meaning; nil when the error carries none
}

// errorDocs covers every code of rpc/errors.go; a test parses that file to
// keep the two in step.
var errorDocs = map[int64]errorDoc{
	rpc.CodeParseError:     {"ParseError", "parse error: the message is not JSON", nil},
	rpc.CodeInvalidRequest: {"InvalidRequest", "invalid request (or already initialized)", nil},
	rpc.CodeMethodNotFound: {"MethodNotFound", "method not found", nil},
	rpc.CodeInvalidParams: {"InvalidParams", "invalid params", map[string]string{
		"field":      "The offending param.",
		"reason":     "What is wrong with it.",
		"value":      "When present: the value refused (an unsupported permission_mode, a session_id the runtime cannot run a new session under).",
		"agent_type": "When present: the runtime that refused it.",
		"supported":  "When present: the values that runtime accepts (permission_mode).",
	}},
	rpc.CodeInternalError:  {"InternalError", "internal error", nil},
	rpc.CodeOverloaded:     {"Overloaded", "server overloaded; retry later", nil},
	rpc.CodeNotInitialized: {"NotInitialized", "not initialized: call initialize first", nil},
	rpc.CodeSessionNotFound: {"SessionNotFound", "session not found", map[string]string{
		"session_id": "The unknown session id.",
		"agent_type": "When present: the session's runtime.",
		"reason":     "When present, why a session cdevd knew cannot be continued: ended_before_first_turn (its CLI keeps no session without a turn).",
	}},
	rpc.CodeSessionBusy: {"SessionBusy", "session busy: it cannot take the request now", map[string]string{
		"session_id": "The busy session.",
		"reason":     "Why it cannot take the request.",
	}},
	rpc.CodeRequestNotFound: {"RequestNotFound", "no pending request to answer", map[string]string{
		"session_id": "The session.",
		"request_id": "The request that was answered, if any.",
	}},
	rpc.CodeWorkspaceNotFound: {"WorkspaceNotFound", "workspace not found", map[string]string{
		"workspace_id": "The unknown workspace id.",
	}},
	rpc.CodeInvalidPath: {"InvalidPath", "invalid path: it cannot be a workspace", map[string]string{
		"path":   "The path as given.",
		"reason": "Why it cannot be used.",
	}},
	rpc.CodePathOutside: {"PathOutside", "path outside workspace", map[string]string{
		"path": "The path that is in no workspace.",
	}},
}
