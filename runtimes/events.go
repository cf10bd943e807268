package runtimes

import "github.com/cdevd/cdevd/rpc"

// Sink receives a session's events in order. It must not block for long: it
// is called from the goroutine that reads the CLI's output.
type Sink func(Event)

// Event is one normalized thing that happened in a runtime session. The
// concrete types below are the whole set.
type Event interface{ isEvent() }

// MessageDelta is a live piece of a message being written.
type MessageDelta struct {
	MessageID string
	Phase     rpc.DeltaPhase
	Text      string
}

// MessageCompleted is a complete message (user, assistant or tool result).
type MessageCompleted struct {
	Message rpc.Message
}

// ActivityChanged says what the agent is doing now. Retry is set, with
// Activity thinking, while the CLI retries a failed model call on its own.
type ActivityChanged struct {
	Activity rpc.Activity
	Retry    *rpc.Retry `json:",omitempty"`
}

// PromptRequested asks the user for a permission decision or an answer.
// Exactly one of Permission and Question is set.
type PromptRequested struct {
	RequestID  string
	Permission *PermissionPrompt
	Question   *QuestionPrompt
}

// PermissionPrompt is a tool call waiting for approval.
type PermissionPrompt struct {
	Kind        rpc.PermissionKind
	ToolName    string
	Target      string
	Description string
	Preview     string
	Options     []rpc.Option
}

// QuestionPrompt is one or more questions waiting for an answer.
type QuestionPrompt struct {
	Questions []rpc.Question
}

// PromptCancelled withdraws a prompt the runtime no longer waits for.
type PromptCancelled struct {
	RequestID string
}

// TurnCompleted ends a turn that finished.
type TurnCompleted struct {
	Usage      rpc.Usage
	CostUSD    *float64
	StopReason string
	DurationMS int64
}

// TurnFailed ends a turn that failed. Code is one of the ErrorEvent codes.
type TurnFailed struct {
	Code    string
	Message string
}

// ProcessExited is the last event of a session: its process is gone.
type ProcessExited struct {
	ExitCode int // -1 when killed by a signal
	Reason   string
}

func (MessageDelta) isEvent()     {}
func (MessageCompleted) isEvent() {}
func (ActivityChanged) isEvent()  {}
func (PromptRequested) isEvent()  {}
func (PromptCancelled) isEvent()  {}
func (TurnCompleted) isEvent()    {}
func (TurnFailed) isEvent()       {}
func (ProcessExited) isEvent()    {}

// Error codes carried by TurnFailed and the error event.
const (
	CodeCLIExited      = "cli_exited"
	CodeStallTimeout   = "stall_timeout"
	CodeOutputTooLarge = "output_too_large"
	CodeStartFailed    = "start_failed"
	CodeRuntimeError   = "runtime_error"
	CodeInterrupted    = "interrupted"

	// A turn that could not reach its model ends with one of these,
	// classified from the CLI's structured output (HTTP status, error kind).
	CodeAuthRequired = "auth_required" // not logged in, bad or expired credentials (401/403)
	CodeUnreachable  = "unreachable"   // no answer at all: connection refused, DNS, network down
	CodeRateLimited  = "rate_limited"  // 429, quota or usage limit
	CodeRefused      = "refused"       // the API refused the request (another 4xx)
	CodeServerError  = "server_error"  // the API failed (5xx, overloaded)
)

// CodeForHTTPStatus is the error code of a model call that ended with HTTP
// status; 0 (no response) is unreachable.
func CodeForHTTPStatus(status int) string {
	switch {
	case status == 0:
		return CodeUnreachable
	case status == 401 || status == 403:
		return CodeAuthRequired
	case status == 429:
		return CodeRateLimited
	case status >= 500:
		return CodeServerError
	case status >= 400:
		return CodeRefused
	}
	return CodeRuntimeError
}
