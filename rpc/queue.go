package rpc

// The follow-up queue cdevd keeps for each session (session/queue/*,
// event/queue_changed), and steering: input into the running turn
// (session/steer).

const (
	MethodQueueList    = "session/queue/list"
	MethodQueueUpdate  = "session/queue/update"
	MethodQueueMove    = "session/queue/move"
	MethodQueueRemove  = "session/queue/remove"
	MethodQueueClear   = "session/queue/clear"
	MethodQueueResume  = "session/queue/resume"
	MethodSessionSteer = "session/steer"

	EventQueueChanged = "queue_changed"
)

// Send statuses: what session/send did with the prompt.
const (
	SendSent   = "sent"   // a turn started with it
	SendQueued = "queued" // a turn was running: it waits in the session's queue
)

// QueuePause says why a queue does not drain.
type QueuePause string

// Why a queue waits. A queue pauses only while it holds prompts.
const (
	PauseInterrupted QueuePause = "interrupted" // the user interrupted the turn before them
	PauseStopped     QueuePause = "stopped"     // the session was stopped (session/stop, workspace removed, shutdown)
	PauseFailed      QueuePause = "failed"      // a turn ended in error, or a queued prompt could not be sent
	PauseRestarted   QueuePause = "restarted"   // cdevd restarted: nothing runs on its own afterwards
)

// Enum lists the values of QueuePause.
func (QueuePause) Enum() []string { return []string{"interrupted", "stopped", "failed", "restarted"} }

// QueueItem is one prompt waiting for its turn.
type QueueItem struct {
	QueueID  string `json:"queue_id" doc:"Stable for the item's life; names it to update, move and remove."`
	Prompt   string `json:"prompt"`
	QueuedAt string `json:"queued_at" format:"date-time"`
	QueuedBy string `json:"queued_by,omitempty" doc:"The client id that queued it."`
	// Attachments are kept as the files cdevd stored, so that a queue
	// reloaded after a restart still carries them.
	Attachments []QueuedAttachment `json:"attachments,omitempty" doc:"The images and files sent with the prompt; they go with its turn."`
}

// QueuedAttachment is an attachment of a queued prompt, as cdevd stored it.
type QueuedAttachment struct {
	Kind     AttachmentKind `json:"kind"`
	MIMEType string         `json:"mime_type,omitempty"`
	Name     string         `json:"name,omitempty" doc:"The client's name for it (shown to the agent, never a path)."`
	Path     string         `json:"local_path" doc:"Where cdevd keeps it; the turn fails if it has expired meanwhile."`
}

// Queue is a session's follow-up queue, first to run first.
type Queue struct {
	Items        []QueueItem `json:"items" doc:"Oldest first: items[0] runs next."`
	Paused       bool        `json:"paused" doc:"The queue does not drain until session/queue/resume or the next session/send."`
	PauseReason  QueuePause  `json:"pause_reason,omitempty"`
	PauseMessage string      `json:"pause_message,omitempty" doc:"What happened, in words (a failed turn's error)."`
}

// QueueParams names a session's queue.
type QueueParams struct {
	SessionID string `json:"session_id"`
}

// QueueItemParams names one item of a session's queue.
type QueueItemParams struct {
	SessionID string `json:"session_id"`
	QueueID   string `json:"queue_id"`
}

// QueueUpdateParams replaces a queued prompt's text.
type QueueUpdateParams struct {
	SessionID string `json:"session_id"`
	QueueID   string `json:"queue_id"`
	Prompt    string `json:"prompt"`
}

// QueueMoveParams moves a queued prompt to another place in the queue.
type QueueMoveParams struct {
	SessionID string `json:"session_id"`
	QueueID   string `json:"queue_id"`
	Position  int    `json:"position" minimum:"1" doc:"Its new place, from 1 (runs next); past the end means last."`
}

// QueueResult is a session's queue after the call.
type QueueResult struct {
	SessionID string `json:"session_id"`
	Queue
}

// QueueChangedEvent carries a session's whole queue each time it changes:
// an item queued, edited, moved, removed or started, the queue cleared,
// paused or resumed.
type QueueChangedEvent struct {
	EventHeader
	Queue
}

// SteerParams sends input into the running turn.
type SteerParams struct {
	SessionID string `json:"session_id"`
	Prompt    string `json:"prompt"`
	AgentType string `json:"agent_type,omitempty"`
}

// SteerResult answers session/steer.
type SteerResult struct {
	Status    string `json:"status" enum:"steered"`
	SessionID string `json:"session_id"`
}
