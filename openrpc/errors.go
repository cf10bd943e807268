package openrpc

import (
	"reflect"

	"github.com/cdevd/cdevd/rpc"
)

// errorDoc documents one error code. OpenRPC 1.3 error objects allow only
// code, message and data (a value, not a schema), so the short description
// of when the error happens is the message and the schema of data is linked
// from the x-data-schema extension.
type errorDoc struct {
	name    string // the key in components.errors
	message string
	data    reflect.Type // the Go type describing data; nil when the error carries none
}

// The shapes of each error's data, reflected like the wire types. They
// describe maps the server builds (rpc/errors.go, the registry's routing),
// so they live here rather than in package rpc.

// FieldErrorData is -32602 about one param.
type FieldErrorData struct {
	Field     string   `json:"field" doc:"The offending param."`
	Reason    string   `json:"reason" doc:"What is wrong with it."`
	Value     string   `json:"value,omitempty" doc:"The value refused (an unsupported permission_mode, model or effort, a session_id the runtime cannot run a new session under)."`
	AgentType string   `json:"agent_type,omitempty" doc:"The runtime that refused it."`
	Model     string   `json:"model,omitempty" doc:"With an effort refused: the model it was asked for."`
	Supported []string `json:"supported,omitempty" doc:"The values that runtime accepts: its permission modes, its models (ids), the model's efforts (empty: it takes none), or an attachment's kinds."`
}

// UnknownRuntimeData is -32602 for an agent_type no runtime has.
type UnknownRuntimeData struct {
	AgentType           string   `json:"agent_type"`
	Method              string   `json:"method"`
	SupportedAgentTypes []string `json:"supported_agent_types"`
}

// DisabledRuntimeData is -32602 for a runtime that cannot be used now.
type DisabledRuntimeData struct {
	AgentType           string            `json:"agent_type"`
	Method              string            `json:"method"`
	SupportedAgentTypes []string          `json:"supported_agent_types"`
	Status              rpc.RuntimeStatus `json:"status" doc:"disabled."`
	Reason              string            `json:"reason" doc:"Why, as in the registry's availability.reason."`
}

// InvalidParamsData is one of the shapes of -32602's data.
type InvalidParamsData struct{}

// MethodNotFoundData names the method.
type MethodNotFoundData struct {
	Method string `json:"method"`
}

// InternalErrorData is present when a runtime failed, the system refused a
// watch, or a batch's replies grew too large.
type InternalErrorData struct {
	AgentType     string   `json:"agent_type,omitempty" doc:"The runtime that failed."`
	Method        string   `json:"method,omitempty"`
	Reason        string   `json:"reason,omitempty" doc:"What failed (a kernel limit and how to raise it, for a refused watch)."`
	WorkspaceID   string   `json:"workspace_id,omitempty" doc:"The workspace whose transcripts could not be watched."`
	SessionID     string   `json:"session_id,omitempty" doc:"The session whose transcript could not be watched."`
	MaxReplyBytes int64    `json:"max_reply_bytes,omitempty" doc:"A batch's replies exceeded this: send the request on its own."`
	Path          string   `json:"path,omitempty" doc:"session/revert: the file that could not be restored (the files restored before it were put back)."`
	NotPutBack    []string `json:"not_put_back,omitempty" doc:"session/revert: files restored that could not then be put back as they were."`
}

// InvalidRequestData is present when a batch is too long.
type InvalidRequestData struct {
	MaxBatch int `json:"max_batch,omitempty" doc:"The most requests a batch may hold."`
}

// ForbiddenData names the method refused and the caller's scope.
type ForbiddenData struct {
	Method string `json:"method"`
	Scope  string `json:"scope" enum:"watch" doc:"The scope of the calling device, which may read but not act."`
}

// SessionNotFoundData names the session.
type SessionNotFoundData struct {
	SessionID string `json:"session_id"`
	AgentType string `json:"agent_type,omitempty" doc:"The session's runtime."`
	Reason    string `json:"reason,omitempty" enum:"ended_before_first_turn" doc:"Why a session cdevd knew cannot be continued (its CLI keeps no session without a turn)."`
}

// SessionBusyData says why the session cannot take the request.
type SessionBusyData struct {
	SessionID string `json:"session_id"`
	Reason    string `json:"reason"`
}

// RequestNotFoundData names the prompt answered.
type RequestNotFoundData struct {
	SessionID string `json:"session_id"`
	RequestID string `json:"request_id" doc:"The request that was answered; empty when none was named."`
}

// WorkspaceNotFoundData names the workspace.
type WorkspaceNotFoundData struct {
	WorkspaceID string `json:"workspace_id"`
}

// InvalidPathData names the path and why.
type InvalidPathData struct {
	Path   string `json:"path" doc:"The path as given."`
	Reason string `json:"reason"`
}

// PathOutsideData names the path.
type PathOutsideData struct {
	Path string `json:"path" doc:"The path that is in no workspace."`
}

// NotGitRepoData names the workspace and its folder.
type NotGitRepoData struct {
	WorkspaceID string `json:"workspace_id"`
	Path        string `json:"path" doc:"The workspace's folder, in no git repository."`
}

// RevertConflictData lists the files a revert refused to overwrite.
type RevertConflictData struct {
	SessionID string   `json:"session_id"`
	Turn      int      `json:"turn"`
	Files     []string `json:"files" doc:"Changed since the turn; session/revert with force restores them anyway."`
}

// QueueItemGoneData names the queue item a queue edit could not find.
type QueueItemGoneData struct {
	SessionID string `json:"session_id"`
	QueueID   string `json:"queue_id"`
	Reason    string `json:"reason" enum:"ran,unknown" doc:"ran: its turn already started; unknown: removed, cleared, or never queued."`
}

// NoTurnData names the session that had no turn to steer.
type NoTurnData struct {
	SessionID string `json:"session_id"`
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// errorDocs covers every code of rpc/errors.go; a test parses that file to
// keep the two in step.
var errorDocs = map[int64]errorDoc{
	rpc.CodeParseError:      {"ParseError", "parse error: the frame is not JSON (answered with id null)", nil},
	rpc.CodeInvalidRequest:  {"InvalidRequest", "invalid request: not a JSON-RPC 2.0 request, a batch too long, or initialize again", typeOf[InvalidRequestData]()},
	rpc.CodeMethodNotFound:  {"MethodNotFound", "method not found: this server does not have the method (an older cdevd than the document)", typeOf[MethodNotFoundData]()},
	rpc.CodeInvalidParams:   {"InvalidParams", "invalid params, or an agent_type that is unknown or disabled", typeOf[InvalidParamsData]()},
	rpc.CodeInternalError:   {"InternalError", "internal error: the runtime failed or the system refused", typeOf[InternalErrorData]()},
	rpc.CodeOverloaded:      {"Overloaded", "server overloaded: too many requests in flight on this connection; retry later", nil},
	rpc.CodeNotInitialized:  {"NotInitialized", "not initialized: call initialize first and wait for its reply", nil},
	rpc.CodeForbidden:       {"Forbidden", "forbidden: the method acts, and this device may only watch (its scope is watch)", typeOf[ForbiddenData]()},
	rpc.CodeSessionNotFound: {"SessionNotFound", "session not found", typeOf[SessionNotFoundData]()},
	rpc.CodeSessionBusy:     {"SessionBusy", "session busy: it cannot take the request now", typeOf[SessionBusyData]()},
	rpc.CodeRequestNotFound: {"RequestNotFound", "no pending request to answer", typeOf[RequestNotFoundData]()},
	rpc.CodeRevertConflict:  {"RevertConflict", "revert refused: files it would restore were changed since the turn (by the user or a later turn); force overwrites them", typeOf[RevertConflictData]()},
	rpc.CodeQueueItemGone:   {"QueueItemGone", "the queue no longer holds the item: it already ran, or was removed", typeOf[QueueItemGoneData]()},
	rpc.CodeNoTurn:          {"NoTurn", "no turn is running to take the input: send it with session/send", typeOf[NoTurnData]()},
	rpc.CodeWorkspaceNotFound: {"WorkspaceNotFound", "workspace not found",
		typeOf[WorkspaceNotFoundData]()},
	rpc.CodeInvalidPath: {"InvalidPath", "invalid path: it cannot be a workspace", typeOf[InvalidPathData]()},
	rpc.CodePathOutside: {"PathOutside", "path outside workspace", typeOf[PathOutsideData]()},
	rpc.CodeNotGitRepo: {"NotGitRepository", "not a git repository: the workspace's folder is in none (git/init makes one)",
		typeOf[NotGitRepoData]()},
}

// invalidParamsData is the union InvalidParamsData stands for: anyOf, since
// the disabled shape is the unknown one plus status and reason.
func invalidParamsData(r *reflector) (*schema, error) {
	s := &schema{Description: "A bad param (field), or a routing error (an unknown or a disabled agent_type)."}
	for _, t := range []reflect.Type{typeOf[FieldErrorData](), typeOf[UnknownRuntimeData](), typeOf[DisabledRuntimeData]()} {
		ref, err := r.schemaOf(t)
		if err != nil {
			return nil, err
		}
		s.AnyOf = append(s.AnyOf, ref)
	}
	return s, nil
}

// commonErrors are the codes any call can get: transport and dispatch
// errors come before a method's own. initialize is the one method that
// needs no initialize before it.
func commonErrors(method string) []int64 {
	codes := []int64{rpc.CodeParseError, rpc.CodeInvalidRequest, rpc.CodeMethodNotFound, rpc.CodeInvalidParams,
		rpc.CodeInternalError, rpc.CodeOverloaded}
	if method != rpc.MethodInitialize {
		codes = append(codes, rpc.CodeNotInitialized)
	}
	return codes
}
