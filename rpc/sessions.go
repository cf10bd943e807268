package rpc

// SessionStatus is a session's lifecycle status. Existing clients fail to
// decode any value not listed here.
type SessionStatus string

// Session statuses.
const (
	StatusStarting   SessionStatus = "starting"
	StatusRunning    SessionStatus = "running"
	StatusStopping   SessionStatus = "stopping"
	StatusStopped    SessionStatus = "stopped"
	StatusError      SessionStatus = "error"
	StatusHistorical SessionStatus = "historical"
)

// Enum lists the values of SessionStatus.
func (SessionStatus) Enum() []string {
	return []string{"starting", "running", "stopping", "stopped", "error", "historical"}
}

// StartStatus says what session/start did.
type StartStatus string

// session/start outcomes.
const (
	StartStarted  StartStatus = "started"  // a new process was started (new or resumed session)
	StartExisting StartStatus = "existing" // the session was already running in cdevd
)

// Enum lists the values of StartStatus.
func (StartStatus) Enum() []string { return []string{"started", "existing", "attached", "not_found"} }

// Activity is what the agent is doing.
type Activity string

// Activities.
const (
	ActivityIdle       Activity = "idle"
	ActivityThinking   Activity = "thinking"
	ActivityPermission Activity = "permission"
	ActivityQuestion   Activity = "question"
)

// Enum lists the values of Activity.
func (Activity) Enum() []string { return []string{"idle", "thinking", "permission", "question"} }

// PermissionMode is how the agent asks before acting.
type PermissionMode string

// Permission modes.
const (
	PermissionDefault     PermissionMode = "default"
	PermissionAcceptEdits PermissionMode = "acceptEdits"
	PermissionBypass      PermissionMode = "bypassPermissions"
	PermissionPlan        PermissionMode = "plan"
	PermissionInteractive PermissionMode = "interactive"
)

// Enum lists the values of PermissionMode.
func (PermissionMode) Enum() []string {
	return []string{"default", "acceptEdits", "bypassPermissions", "plan", "interactive"}
}

// SessionStartParams starts, resumes or attaches to a session.
type SessionStartParams struct {
	WorkspaceID     string         `json:"workspace_id"`
	AgentType       string         `json:"agent_type,omitempty"`
	SessionID       string         `json:"session_id,omitempty" doc:"A running session to attach to, or a historical one to resume."`
	ResumeSessionID string         `json:"resume_session_id,omitempty" doc:"A historical session to resume."`
	Cwd             string         `json:"cwd,omitempty" doc:"A directory inside the workspace to run in (default: the workspace root)."`
	Prompt          string         `json:"prompt,omitempty" doc:"First turn, sent once the session runs."`
	Model           string         `json:"model,omitempty" doc:"One of the runtime record's models (id or alias); any model when the record lists none."`
	Effort          string         `json:"effort,omitempty" doc:"One of the model's efforts in the runtime record."`
	PermissionMode  PermissionMode `json:"permission_mode,omitempty"`
	YoloMode        bool           `json:"yolo_mode,omitempty" doc:"Skip every permission prompt."`
	Attachments     []Attachment   `json:"attachments,omitempty" doc:"Images and files for the first turn (with prompt); the runtime's record says which kinds it accepts."`
}

// SessionStartResult answers session/start. The session id is final.
type SessionStartResult struct {
	SessionID   string      `json:"session_id"`
	WorkspaceID string      `json:"workspace_id"`
	AgentType   string      `json:"agent_type"`
	Status      StartStatus `json:"status"`
	Source      string      `json:"source,omitempty" enum:"new,resumed,live" doc:"live: the session was already running."`
}

// SendMode says whether session/send without a session id continues the
// workspace's current session or starts a new one.
type SendMode string

// Send modes.
const (
	SendNew      SendMode = "new"
	SendContinue SendMode = "continue"
)

// Enum lists the values of SendMode.
func (SendMode) Enum() []string { return []string{"new", "continue"} }

// SessionSendParams sends the next user turn.
type SessionSendParams struct {
	Prompt         string         `json:"prompt"`
	SessionID      string         `json:"session_id,omitempty"`
	WorkspaceID    string         `json:"workspace_id,omitempty" doc:"With no session_id: the workspace whose current session (mode continue) or a new session (mode new) gets the turn."`
	Mode           SendMode       `json:"mode,omitempty"`
	AgentType      string         `json:"agent_type,omitempty"`
	PermissionMode PermissionMode `json:"permission_mode,omitempty"`
	YoloMode       bool           `json:"yolo_mode,omitempty"`
	Queue          *bool          `json:"queue,omitempty" doc:"false: refuse with -32011 while a turn runs, instead of queueing the prompt (the default)."`
	Model          string         `json:"model,omitempty" doc:"Run this turn and the next ones with this model (as session/configure does)."`
	Effort         string         `json:"effort,omitempty" doc:"Run this turn and the next ones with this effort (as session/configure does)."`
	Attachments    []Attachment   `json:"attachments,omitempty" doc:"Images and files for this turn; the runtime's record says which kinds it accepts."`
}

// SessionSendResult answers session/send.
type SessionSendResult struct {
	Status      string `json:"status" enum:"sent,queued" doc:"queued: a turn was running, and the prompt waits in the session's queue (session/queue/list)."`
	SessionID   string `json:"session_id"`
	AgentType   string `json:"agent_type"`
	WorkspaceID string `json:"workspace_id,omitempty"`
	AutoCreated bool   `json:"auto_created,omitempty"`
	QueueID     string `json:"queue_id,omitempty" doc:"The queued prompt's id (status queued)."`
	Position    int    `json:"position,omitempty" doc:"Its place in the queue, from 1 (status queued)."`
}

// SessionStopParams stops a session.
type SessionStopParams struct {
	SessionID string `json:"session_id"`
	AgentType string `json:"agent_type,omitempty"`
}

// SessionStopResult answers session/stop.
type SessionStopResult struct {
	Success   bool   `json:"success"`
	Status    string `json:"status" enum:"stopped"`
	SessionID string `json:"session_id"`
	AgentType string `json:"agent_type"`
}

// SessionInputParams answers the pending prompt with a key or text.
type SessionInputParams struct {
	SessionID string `json:"session_id"`
	Input     string `json:"input,omitempty" doc:"Text, an option key, or a key name (enter, escape, …)."`
	Key       string `json:"key,omitempty" known:"enter,escape,up,down,tab" doc:"A key name, or an option key."`
	AgentType string `json:"agent_type,omitempty"`
}

// StatusResult is {status} alone.
type StatusResult struct {
	Status string `json:"status"`
}

// RespondType says what kind of prompt a response answers.
type RespondType string

// Response types.
const (
	RespondPermission RespondType = "permission"
	RespondQuestion   RespondType = "question"
)

// Enum lists the values of RespondType.
func (RespondType) Enum() []string { return []string{"permission", "question"} }

// SessionRespondParams answers a permission request or a question.
type SessionRespondParams struct {
	SessionID string      `json:"session_id"`
	Type      RespondType `json:"type"`
	Response  string      `json:"response" known:"yes,no,always" doc:"yes, no, always, an option key, or answer text."`
	RequestID string      `json:"request_id,omitempty" doc:"Which prompt; defaults to the oldest pending one of this type."`
	AgentType string      `json:"agent_type,omitempty"`
}

// SessionStateParams asks for a session's state.
type SessionStateParams struct {
	SessionID string `json:"session_id"`
	AgentType string `json:"agent_type,omitempty"`
}

// PendingRequest is a prompt waiting for an answer.
type PendingRequest struct {
	RequestID string      `json:"request_id"`
	Type      RespondType `json:"type"`
	ToolName  string      `json:"tool_name,omitempty"`
	Summary   string      `json:"summary,omitempty"`
}

// SessionStateResult is a session's exact state.
type SessionStateResult struct {
	SessionID       string           `json:"session_id"`
	WorkspaceID     string           `json:"workspace_id"`
	AgentType       string           `json:"agent_type"`
	Status          SessionStatus    `json:"status"`
	Activity        Activity         `json:"activity"`
	StartedAt       string           `json:"started_at" format:"date-time"`
	LastActive      string           `json:"last_active" format:"date-time"`
	IsRunning       bool             `json:"is_running" doc:"The runtime's process is alive."`
	WaitingForInput bool             `json:"waiting_for_input"`
	Context         *ContextUsage    `json:"context,omitempty" doc:"How full the context window is, once the runtime has said (after a model call in this process)."`
	Pending         []PendingRequest `json:"pending,omitempty"`
	Epoch           string           `json:"epoch"`
	LastSeq         int64            `json:"last_seq"`
	Queue           *Queue           `json:"queue,omitempty" doc:"The follow-up queue, when it holds prompts."`
	Model           string           `json:"model,omitempty" doc:"The model asked for (session/start, send or configure), from the next turn on; absent: the runtime's default."`
	Effort          string           `json:"effort,omitempty" doc:"The effort asked for; absent: the model's default."`
	PermissionMode  PermissionMode   `json:"permission_mode,omitempty" doc:"The permission mode asked for; absent: the runtime's default."`
}
