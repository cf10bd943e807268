package scripted

import (
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// The fake CLI and the adapter talk in JSON lines, the way Claude's
// stream-json does: one input object per stdin line, one output object per
// stdout line.

// Input line types (adapter → fake).
const (
	inUser      = "user"      // Text is the turn's prompt
	inAnswer    = "answer"    // RequestID with Decision or Text
	inInterrupt = "interrupt" // abandon the running turn
	inSteer     = "steer"     // Text joins the running turn (recorded as a user message)
)

// input is one stdin line.
type input struct {
	Type      string            `json:"type"`
	Text      string            `json:"text,omitempty"`
	RequestID string            `json:"request_id,omitempty"`
	Decision  runtimes.Decision `json:"decision,omitempty"`
	// Model switches the model put on assistant messages from this turn
	// on (a user line only): the fake's form of a CLI's model switch.
	Model string `json:"model,omitempty"`
}

// Output line types (fake → adapter).
const (
	outInit       = "init"       // the first line: SessionID is final
	outDelta      = "delta"      // MessageID, Phase, Text
	outMessage    = "message"    // Message is complete (and in the transcript)
	outPermission = "permission" // RequestID, Permission
	outQuestion   = "question"   // RequestID, Question
	outCancelled  = "cancelled"  // RequestID is no longer waited for
	outResult     = "result"     // the turn completed: Usage, StopReason, DurationMS
	outError      = "error"      // Code, Error: the turn failed (or, before init, the start did)
)

// codeNoSession is the start error for a resume of an unknown session.
const codeNoSession = "no_session"

// output is one stdout line.
type output struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id,omitempty"`
	MessageID  string          `json:"message_id,omitempty"`
	Phase      rpc.DeltaPhase  `json:"phase,omitempty"`
	Text       string          `json:"text,omitempty"`
	Message    *rpc.Message    `json:"message,omitempty"`
	RequestID  string          `json:"request_id,omitempty"`
	Permission *permissionStep `json:"permission,omitempty"`
	Question   *questionStep   `json:"question,omitempty"`
	Usage      *rpc.Usage      `json:"usage,omitempty"`
	StopReason string          `json:"stop_reason,omitempty"`
	DurationMS int64           `json:"duration_ms,omitempty"`
	Code       string          `json:"code,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// script is a prompt of the form {"steps":[...]}.
type script struct {
	Steps []step `json:"steps"`
}

// step is one scripted action; exactly one field is set.
type step struct {
	Delta         *string         `json:"delta,omitempty"`
	Message       *string         `json:"message,omitempty"`
	Thinking      *string         `json:"thinking,omitempty"`
	Permission    *permissionStep `json:"permission,omitempty"`
	Question      *questionStep   `json:"question,omitempty"`
	SleepMS       int             `json:"sleep_ms,omitempty"`
	WaitInterrupt bool            `json:"wait_interrupt,omitempty"`
	Crash         *int            `json:"crash,omitempty"`
	IgnoreTerm    bool            `json:"ignore_term,omitempty"`
	Hang          bool            `json:"hang,omitempty"`
	Garbage       *string         `json:"garbage,omitempty"`
	Bigline       int             `json:"bigline,omitempty"`
	BigMessage    int             `json:"big_message,omitempty"`
	Fail          *string         `json:"fail,omitempty"`
	Blocks        *blocksStep     `json:"blocks,omitempty"`
}

// blocksStep is a complete message of any blocks, for clients that draw
// each runtime's shapes (tool calls and their results) to be shown them.
type blocksStep struct {
	Role    rpc.MessageType    `json:"role"` // assistant (the default) or user
	Content []rpc.ContentBlock `json:"content"`
}

// permissionStep is a tool call that needs approval.
type permissionStep struct {
	Tool   string             `json:"tool"`
	Target string             `json:"target"`
	Kind   rpc.PermissionKind `json:"kind"`
}

// questionStep is a question with optional choices.
type questionStep struct {
	Text    string   `json:"text"`
	Options []string `json:"options,omitempty"`
}
