package fakeanthropic

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Reply is the scripted answer to one Messages request. Its blocks are sent
// in the order thinking, text, tool_use; a Reply with Err is an HTTP error
// instead.
type Reply struct {
	Thinking string
	Text     string
	Tool     *ToolCall
	// Delay is waited before each delta: a slow stream. The stream ends early
	// when the client goes away.
	Delay time.Duration
	// StopReason overrides the default (tool_use with a Tool, else end_turn).
	StopReason string
	// Err answers with an HTTP error. Claude Code retries 429 and 5xx for
	// minutes; use a 4xx for a failure the test wants to see promptly.
	Err *APIError
	// Headers go with the answer, error or not: the plan's limits
	// (anthropic-ratelimit-unified-…), which Claude Code reads from them.
	Headers http.Header
}

// ToolCall is a tool_use block.
type ToolCall struct {
	ID    string // default toolu_fake_<n>
	Name  string
	Input any // marshalled to JSON and streamed as input_json_delta
}

// APIError is an Anthropic error response.
type APIError struct {
	Status  int
	Type    string // e.g. invalid_request_error, overloaded_error
	Message string
}

// Text replies with a text block.
func Text(s string) Reply { return Reply{Text: s} }

// Think replies with a thinking block, then a text block.
func Think(thought, text string) Reply { return Reply{Thinking: thought, Text: text} }

// UseTool replies with a tool call (stop_reason tool_use).
func UseTool(name string, input any) Reply {
	return Reply{Tool: &ToolCall{Name: name, Input: input}}
}

// Slow replies with text streamed one word per delay.
func Slow(text string, delay time.Duration) Reply { return Reply{Text: text, Delay: delay} }

// Fail replies with an HTTP error.
func Fail(status int, typ, msg string) Reply {
	return Reply{Err: &APIError{Status: status, Type: typ, Message: msg}}
}

// block is a content block being sent: its start, its deltas, and its final form.
type block struct {
	start  map[string]any
	deltas []map[string]any
	final  map[string]any
}

func (r Reply) blocks(msgID string) []block {
	var out []block
	if r.Thinking != "" {
		b := block{
			start: map[string]any{"type": "thinking", "thinking": "", "signature": ""},
			final: map[string]any{"type": "thinking", "thinking": r.Thinking, "signature": "sig_fake"},
		}
		for _, c := range fakeapi.Words(r.Thinking) {
			b.deltas = append(b.deltas, map[string]any{"type": "thinking_delta", "thinking": c})
		}
		b.deltas = append(b.deltas, map[string]any{"type": "signature_delta", "signature": "sig_fake"})
		out = append(out, b)
	}
	if r.Text != "" || (r.Thinking == "" && r.Tool == nil) {
		b := block{
			start: map[string]any{"type": "text", "text": ""},
			final: map[string]any{"type": "text", "text": r.Text},
		}
		for _, c := range fakeapi.Words(r.Text) {
			b.deltas = append(b.deltas, map[string]any{"type": "text_delta", "text": c})
		}
		out = append(out, b)
	}
	if r.Tool != nil {
		id := r.Tool.ID
		if id == "" {
			id = "toolu_" + msgID
		}
		input, err := json.Marshal(r.Tool.Input)
		if err != nil || r.Tool.Input == nil {
			input = []byte("{}")
		}
		b := block{
			start: map[string]any{"type": "tool_use", "id": id, "name": r.Tool.Name, "input": map[string]any{}},
			final: map[string]any{"type": "tool_use", "id": id, "name": r.Tool.Name, "input": json.RawMessage(input)},
		}
		// Two pieces, as the real API splits partial JSON anywhere.
		half := len(input) / 2
		for _, part := range []string{string(input[:half]), string(input[half:])} {
			b.deltas = append(b.deltas, map[string]any{"type": "input_json_delta", "partial_json": part})
		}
		out = append(out, b)
	}
	return out
}

func (r Reply) stopReason() string {
	switch {
	case r.StopReason != "":
		return r.StopReason
	case r.Tool != nil:
		return "tool_use"
	default:
		return "end_turn"
	}
}

func usage(in, out int) map[string]int {
	return map[string]int{"input_tokens": in, "output_tokens": out,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// message is the non-streaming answer.
func message(req Request, id string, r Reply) map[string]any {
	bs := r.blocks(id)
	content := make([]map[string]any, 0, len(bs))
	out := 0
	for _, b := range bs {
		content = append(content, b.final)
		out += len(b.deltas)
	}
	return map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
		"content": content, "stop_reason": r.stopReason(), "stop_sequence": nil,
		"usage": usage(inputTokens(req), out)}
}

// stream sends the reply as the Messages API's server-sent events.
func (s *Server) stream(w http.ResponseWriter, hr *http.Request, req Request, id string, r Reply) {
	st := s.Stream(w, hr, r.Delay)
	send := func(event string, data map[string]any) bool {
		data["type"] = event
		return st.Event(event, data)
	}
	wait := st.Wait

	in := inputTokens(req)
	if !send("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage(in, 1)}}) {
		return
	}
	out := 0
	for i, b := range r.blocks(id) {
		if !send("content_block_start", map[string]any{"index": i, "content_block": b.start}) {
			return
		}
		for _, d := range b.deltas {
			if !wait() || !send("content_block_delta", map[string]any{"index": i, "delta": d}) {
				return
			}
			out++
		}
		if !send("content_block_stop", map[string]any{"index": i}) {
			return
		}
	}
	if !send("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": r.stopReason(), "stop_sequence": nil},
		"usage": usage(in, out)}) {
		return
	}
	send("message_stop", map[string]any{})
}
