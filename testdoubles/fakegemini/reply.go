package fakegemini

import (
	"time"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Reply is the scripted answer to one request. It streams its thought, then
// its text, then its function call; a Reply with Err is an HTTP error
// instead.
type Reply struct {
	// Thought is sent as one part marked thought:true; a first line
	// "**Subject**" is the thought's subject to the CLI.
	Thought string
	Text    string
	Call    *FunctionCall
	// Delay is waited before each chunk: a slow stream. The stream ends
	// early when the client goes away.
	Delay time.Duration
	// Err answers with an HTTP error. The CLI retries 429 and 5xx with
	// backoff; use a 4xx for a failure the test wants promptly.
	Err *APIError
}

// FunctionCall is a functionCall part.
type FunctionCall struct {
	Name string
	Args any // a JSON object
}

// APIError is a Google API error response.
type APIError struct {
	Status  int
	Code    string // the status name, e.g. INVALID_ARGUMENT, RESOURCE_EXHAUSTED
	Message string
}

// Text replies with model text.
func Text(s string) Reply { return Reply{Text: s} }

// Think replies with a thought, then text.
func Think(thought, text string) Reply { return Reply{Thought: thought, Text: text} }

// Call replies with a function call and no text.
func Call(name string, args any) Reply { return Reply{Call: &FunctionCall{Name: name, Args: args}} }

// Shell replies with the run_shell_command call Gemini CLI 0.61.0 offers
// ({"command": ..., "description": ...}; it runs in the session's cwd).
func Shell(cmd string) Reply {
	return Call("run_shell_command", map[string]string{"command": cmd, "description": "run cmd"})
}

// Slow replies with text streamed one word per delay.
func Slow(text string, delay time.Duration) Reply { return Reply{Text: text, Delay: delay} }

// Fail replies with an HTTP error.
func Fail(status int, code, msg string) Reply {
	return Reply{Err: &APIError{Status: status, Code: code, Message: msg}}
}

func (r Reply) usage(req Request) map[string]int {
	in := len(req.Body)/4 + 1
	out := len(fakeapi.Words(r.Text))
	if r.Thought != "" {
		out++
	}
	if r.Call != nil {
		out++
	}
	return map[string]int{"promptTokenCount": in, "candidatesTokenCount": out, "totalTokenCount": in + out}
}
