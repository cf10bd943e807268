package rpc

// EventPrefix starts the method name of every server notification.
const EventPrefix = "event/"

// Event types (the part after "event/").
const (
	EventMessage            = "claude_message" // every runtime's: the iOS app knows this name
	EventMessageDelta       = "message_delta"
	EventPermission         = "pty_permission"
	EventPermissionResolved = "pty_permission_resolved"
	EventQuestion           = "question"
	EventState              = "pty_state"
	EventTurnCompleted      = "turn_completed"
	EventError              = "error"
	EventSessionStart       = "session_start"
	EventSessionEnd         = "session_end"
	EventSessionStopped     = "session_stopped"
	EventSessionUpdated     = "session_updated"
	EventHeartbeat          = "heartbeat"
	EventSessionJoined      = "session_joined"
	EventSessionLeft        = "session_left"
	EventWorkspaceRemoved   = "workspace_removed"
)

// EventHeader is carried, flattened, by every session event.
type EventHeader struct {
	SessionID   string `json:"session_id"`
	WorkspaceID string `json:"workspace_id"`
	AgentType   string `json:"agent_type"`
	Timestamp   string `json:"timestamp" format:"date-time"`
	Seq         int64  `json:"seq" minimum:"1" doc:"Per session, from 1, no gaps within an epoch."`
	Epoch       string `json:"epoch"`
}

// MessageEvent is a complete message, from any runtime. On the wire it is
// event/claude_message, the name the iOS app knows.
type MessageEvent struct {
	EventHeader
	ID      string      `json:"id"`
	Type    MessageType `json:"type"`
	UUID    string      `json:"uuid"`
	Message MessageBody `json:"message"`
}

// SchemaName keeps the event's schema under the name generated clients
// have always had for it, ClaudeMessageEvent.
func (MessageEvent) SchemaName() string { return "ClaudeMessageEvent" }

// DeltaPhase says what a delta adds to.
type DeltaPhase string

// Delta phases.
const (
	PhaseText     DeltaPhase = "text"
	PhaseThinking DeltaPhase = "thinking"
)

// Enum lists the values of DeltaPhase.
func (DeltaPhase) Enum() []string { return []string{"text", "thinking"} }

// MessageDeltaEvent is a live piece of a message being written.
type MessageDeltaEvent struct {
	EventHeader
	MessageID string     `json:"message_id"`
	Phase     DeltaPhase `json:"phase"`
	Text      string     `json:"text"`
}

// PermissionKind classifies what a permission request is for.
type PermissionKind string

// Permission kinds.
const (
	PermBash    PermissionKind = "bash_command"
	PermWrite   PermissionKind = "write_file"
	PermEdit    PermissionKind = "edit_file"
	PermRead    PermissionKind = "read_file"
	PermMCP     PermissionKind = "mcp_tool"
	PermToolUse PermissionKind = "tool_use"
)

// Enum lists the values of PermissionKind.
func (PermissionKind) Enum() []string {
	return []string{"bash_command", "write_file", "edit_file", "read_file", "mcp_tool", "tool_use"}
}

// Option is one answer a client may choose.
type Option struct {
	Key         string `json:"key"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// PermissionEvent asks the user to allow a tool call.
type PermissionEvent struct {
	EventHeader
	RequestID   string         `json:"request_id"`
	Type        PermissionKind `json:"type"`
	ToolName    string         `json:"tool_name"`
	Target      string         `json:"target" doc:"The command, file or resource concerned."`
	Description string         `json:"description"`
	Preview     string         `json:"preview"`
	Options     []Option       `json:"options"`
}

// Question is one question of a QuestionEvent.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options,omitempty"`
	MultiSelect bool     `json:"multi_select,omitempty"`
}

// QuestionEvent asks the user a question (answered with session/respond type=question).
type QuestionEvent struct {
	EventHeader
	RequestID string     `json:"request_id"`
	Questions []Question `json:"questions"`
}

// PermissionResolvedEvent tells every watcher that a prompt was answered or cancelled.
type PermissionResolvedEvent struct {
	EventHeader
	RequestID  string `json:"request_id"`
	ResolvedBy string `json:"resolved_by" doc:"The answering client's id, or \"server\" when cancelled."`
	Decision   string `json:"decision" enum:"allow,allow_always,deny,answered,cancelled" doc:"allow, allow_always, deny (a permission), answered (a question) or cancelled."`
}

// PtyState is the state shown by pty_state.
type PtyState string

// pty_state values.
const (
	PtyIdle       PtyState = "idle"
	PtyThinking   PtyState = "thinking"
	PtyPermission PtyState = "permission"
	PtyQuestion   PtyState = "question"
	PtyError      PtyState = "error"
)

// Enum lists the values of PtyState.
func (PtyState) Enum() []string {
	return []string{"idle", "thinking", "permission", "question", "error"}
}

// StateEvent tells what the agent is doing now.
type StateEvent struct {
	EventHeader
	State           PtyState `json:"state"`
	WaitingForInput bool     `json:"waiting_for_input"`
	Retry           *Retry   `json:"retry,omitempty" doc:"Set while the CLI retries a failed model call on its own (state thinking)."`
}

// Retry is a model call the CLI is retrying.
type Retry struct {
	Attempt     int    `json:"attempt" doc:"1 for the first retry."`
	MaxAttempts int    `json:"max_attempts,omitempty" doc:"0 when the CLI did not say (it may retry without end)."`
	Code        string `json:"code,omitempty" doc:"What failed, as an error event's code."`
	Message     string `json:"message,omitempty" doc:"The CLI's own words."`
}

// TurnCompletedEvent ends a turn that finished normally.
type TurnCompletedEvent struct {
	EventHeader
	Usage      Usage    `json:"usage"`
	CostUSD    *float64 `json:"cost_usd,omitempty"`
	StopReason string   `json:"stop_reason"`
	DurationMS int64    `json:"duration_ms,omitempty"`
}

// ErrorEvent ends a turn that failed, or reports a session-level failure.
type ErrorEvent struct {
	EventHeader
	Code    string `json:"code" enum:"cli_exited,stall_timeout,output_too_large,start_failed,runtime_error,interrupted,auth_required,unreachable,rate_limited,refused,server_error" doc:"Stable; more codes may come."`
	Message string `json:"message"`
}

// SessionStartEvent says a session began running in cdevd.
type SessionStartEvent struct {
	EventHeader
	Source string `json:"source,omitempty" enum:"new,resumed"`
}

// SessionEndEvent says a session's process ended (session_end) or that it
// was stopped (session_stopped).
type SessionEndEvent struct {
	EventHeader
	Reason   string `json:"reason"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// SessionUpdatedEvent tells workspace subscribers that a session's
// transcript changed, including sessions run outside cdevd.
type SessionUpdatedEvent struct {
	SessionID    string `json:"session_id"`
	WorkspaceID  string `json:"workspace_id"`
	AgentType    string `json:"agent_type"`
	Summary      string `json:"summary"`
	MessageCount int    `json:"message_count"`
	LastUpdated  string `json:"last_updated" format:"date-time"`
	Timestamp    string `json:"timestamp" format:"date-time"`
}

// HeartbeatEvent keeps idle connections visibly alive.
type HeartbeatEvent struct {
	ServerTime    string `json:"server_time" format:"date-time"`
	Sequence      int64  `json:"sequence"`
	UptimeSeconds int64  `json:"uptime_seconds"`
}

// WorkspaceRemovedEvent tells a workspace's subscribers that it was
// removed (they are unsubscribed with it). Like every workspace event it
// carries the agent_type of the runtime the client uses there and no
// session_id: the iOS app drops an event without a runtime it has open,
// and would read one with a session_id as a session's info.
type WorkspaceRemovedEvent struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Path      string `json:"path"`
	AgentType string `json:"agent_type"`
	Timestamp string `json:"timestamp" format:"date-time"`
}
