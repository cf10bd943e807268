package rpc

import "encoding/json"

// HistoryParams lists a workspace's sessions of one runtime.
type HistoryParams struct {
	WorkspaceID string `json:"workspace_id"`
	AgentType   string `json:"agent_type,omitempty"`
	Limit       int    `json:"limit,omitempty" minimum:"0" maximum:"500" doc:"Default (and 0) 50."`
	Cursor      string `json:"cursor,omitempty" doc:"next_cursor of the previous page."`
}

// HistorySession is one session in a workspace's history.
type HistorySession struct {
	SessionID    string        `json:"session_id"`
	AgentType    string        `json:"agent_type"`
	Summary      string        `json:"summary"`
	MessageCount int           `json:"message_count"`
	LastUpdated  string        `json:"last_updated" format:"date-time"`
	Branch       string        `json:"branch,omitempty"`
	Status       SessionStatus `json:"status"`
	ChangedTurns int           `json:"changed_turns,omitempty" doc:"How many of the session's turns changed files (session/turns lists them, session/turn_diff shows each); omitted when none."`
}

// HistoryResult is one page of history, newest first.
type HistoryResult struct {
	Sessions   []HistorySession `json:"sessions"`
	Total      int              `json:"total"`
	NextCursor string           `json:"next_cursor,omitempty"`
}

// Order is a paging direction.
type Order string

// Orders.
const (
	OrderAsc  Order = "asc"
	OrderDesc Order = "desc"
)

// Enum lists the values of Order.
func (Order) Enum() []string { return []string{"asc", "desc"} }

// MessagesParams pages a session's transcript.
type MessagesParams struct {
	WorkspaceID string `json:"workspace_id"`
	SessionID   string `json:"session_id"`
	AgentType   string `json:"agent_type,omitempty"`
	Limit       int    `json:"limit,omitempty" minimum:"0" maximum:"500" doc:"Default (and 0) 50."`
	Offset      int    `json:"offset,omitempty" minimum:"0"`
	Order       Order  `json:"order,omitempty" doc:"asc: oldest first; desc: newest first (offset counts from the newest)."`
}

// MessagesResult is one page of a transcript.
type MessagesResult struct {
	SessionID   string         `json:"session_id"`
	Messages    []PagedMessage `json:"messages"`
	Total       int            `json:"total"`
	Limit       int            `json:"limit"`
	Offset      int            `json:"offset"`
	HasMore     bool           `json:"has_more"`
	QueryTimeMS float64        `json:"query_time_ms"`
}

// MessageType is who a message is from.
type MessageType string

// Message types.
const (
	MessageUser      MessageType = "user"
	MessageAssistant MessageType = "assistant"
	MessageSystem    MessageType = "system"
)

// Enum lists the values of MessageType.
func (MessageType) Enum() []string { return []string{"user", "assistant", "system"} }

// Message is a complete message in the same shape for every runtime.
type Message struct {
	ID        string      `json:"id"`
	SessionID string      `json:"session_id"`
	Type      MessageType `json:"type"`
	UUID      string      `json:"uuid"`
	Timestamp string      `json:"timestamp" format:"date-time"`
	Message   MessageBody `json:"message"`
}

// PagedMessage is a Message as a page of workspace/session/messages serves
// it: the same fields, but id is the message's position in its transcript
// (0 for the oldest), an integer, because the iOS app decodes a page's ids
// as integers and fails the whole page on a string. The stable string id
// moves to uuid, which clients key on (it is the uuid, or else the id, of
// the same message's claude_message event). A stored message keeps its
// position across pages, orders and reloads, since transcripts are only
// appended to.
type PagedMessage struct {
	ID        int         `json:"id" minimum:"0" doc:"The message's position in its transcript, from 0 (the oldest)."`
	SessionID string      `json:"session_id"`
	Type      MessageType `json:"type"`
	UUID      string      `json:"uuid" doc:"The message's stable id: key on this."`
	Timestamp string      `json:"timestamp" format:"date-time"`
	Message   MessageBody `json:"message"`
}

// Paged is m as a page serves it at position pos.
func (m Message) Paged(pos int) PagedMessage {
	uuid := m.UUID
	if uuid == "" {
		uuid = m.ID
	}
	return PagedMessage{ID: pos, SessionID: m.SessionID, Type: m.Type, UUID: uuid, Timestamp: m.Timestamp, Message: m.Message}
}

// MessageBody is the role and content of a Message.
type MessageBody struct {
	ID      string         `json:"id,omitempty" doc:"The model API's id of an assistant message: the message_id of the message_delta events that streamed it."`
	Role    string         `json:"role"`
	Content []ContentBlock `json:"content"`
	Model   string         `json:"model,omitempty"`
	Usage   *Usage         `json:"usage,omitempty"`
}

// BlockType is a content block's kind.
type BlockType string

// Content block kinds.
const (
	BlockText       BlockType = "text"
	BlockThinking   BlockType = "thinking"
	BlockToolUse    BlockType = "tool_use"
	BlockToolResult BlockType = "tool_result"
	BlockImage      BlockType = "image"
)

// Enum lists the values of BlockType.
func (BlockType) Enum() []string {
	return []string{"text", "thinking", "tool_use", "tool_result", "image"}
}

// ContentBlock is one block of a message; which fields are set depends on type.
type ContentBlock struct {
	Type      BlockType       `json:"type"`
	Text      string          `json:"text,omitempty" doc:"text blocks."`
	Thinking  string          `json:"thinking,omitempty" doc:"thinking blocks."`
	ID        string          `json:"id,omitempty" doc:"tool_use blocks."`
	Name      string          `json:"name,omitempty" doc:"tool_use blocks."`
	Input     json.RawMessage `json:"input,omitempty" doc:"tool_use blocks: the tool's input object." schema:"object"`
	ToolUseID string          `json:"tool_use_id,omitempty" doc:"tool_result blocks."`
	Content   json.RawMessage `json:"content,omitempty" doc:"tool_result blocks: a string or an array of blocks." schema:"any"`
	IsError   bool            `json:"is_error,omitempty" doc:"tool_result blocks."`
	ExitCode  *int            `json:"exit_code,omitempty" doc:"tool_result blocks of a command: its exit status, where the runtime reports one (Codex); absent when unknown."`
	Diffs     []ToolDiff      `json:"diffs,omitempty" doc:"tool_result blocks: the files the tool changed, where the runtime reports their text before and after (ACP agents' diff content)."`
	Source    json.RawMessage `json:"source,omitempty" doc:"image blocks." schema:"object"`
}

// ToolDiff is one file a tool changed, as the runtime reported it: the
// file's text (or the changed part of it) before and after.
type ToolDiff struct {
	Path    string `json:"path"`
	OldText string `json:"old_text" doc:"Empty for a file the tool created."`
	NewText string `json:"new_text"`
}

// Usage is token usage.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens,omitempty"`
}

// WatchParams starts watching a session's events.
type WatchParams struct {
	WorkspaceID string `json:"workspace_id"`
	SessionID   string `json:"session_id"`
	AgentType   string `json:"agent_type,omitempty"`
	SinceSeq    *int64 `json:"since_seq,omitempty" minimum:"0" doc:"Replay events after this seq (same epoch) before going live."`
	Epoch       string `json:"epoch,omitempty" doc:"The epoch since_seq belongs to; another epoch than the server's means a gap."`
}

// WatchResult answers watch. Replayed events are sent right after it.
type WatchResult struct {
	Status      string `json:"status" enum:"watching"`
	Watching    bool   `json:"watching"`
	WorkspaceID string `json:"workspace_id"`
	SessionID   string `json:"session_id"`
	Epoch       string `json:"epoch"`
	LastSeq     int64  `json:"last_seq"`
	Replayed    int    `json:"replayed"`
	Gap         bool   `json:"gap" doc:"The replay buffer no longer reaches since_seq: reload with messages."`
}

// UnwatchParams stops watching one session, or all with no session_id.
type UnwatchParams struct {
	AgentType string `json:"agent_type,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// UnwatchResult answers unwatch.
type UnwatchResult struct {
	Status      string `json:"status" enum:"unwatched"`
	Watching    bool   `json:"watching"`
	WorkspaceID string `json:"workspace_id,omitempty"`
	SessionID   string `json:"session_id,omitempty"`
}

// SessionRefParams names a session in a workspace.
type SessionRefParams struct {
	WorkspaceID string `json:"workspace_id"`
	SessionID   string `json:"session_id"`
	AgentType   string `json:"agent_type,omitempty"`
}

// ActivateResult answers workspace/session/activate.
type ActivateResult struct {
	Success     bool   `json:"success"`
	WorkspaceID string `json:"workspace_id"`
	SessionID   string `json:"session_id"`
}

// DeleteResult answers workspace/session/delete.
type DeleteResult struct {
	Status      string `json:"status" enum:"deleted"`
	WorkspaceID string `json:"workspace_id"`
	SessionID   string `json:"session_id"`
}
