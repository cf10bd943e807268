package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Reply is the scripted answer to one Responses request. Its output items are
// sent in the order reasoning, message, function call; a Reply with Err is an
// HTTP error instead.
type Reply struct {
	// Reasoning is a reasoning item's summary text.
	Reasoning string
	Text      string
	Call      *FunctionCall
	// Custom is a freeform tool's call (Codex's apply_patch), sent after
	// Call if both are set.
	Custom *CustomCall
	// Delay is waited before each delta: a slow stream. The stream ends early
	// when the client goes away.
	Delay time.Duration
	// Err answers with an HTTP error. Codex retries 429 and 5xx several
	// times with backoff; use a 4xx for a failure the test wants promptly.
	Err *APIError
	// Headers go with the answer, error or not: the plan's limits
	// (x-codex-primary-used-percent, …), which Codex reads from them.
	Headers http.Header
}

// FunctionCall is a function_call output item.
type FunctionCall struct {
	CallID    string // default call_fake_<n>
	Name      string
	Arguments any // marshalled to a JSON string, as the API sends arguments
}

// CustomCall is a custom_tool_call output item: a freeform tool's call,
// whose input is plain text rather than JSON arguments.
type CustomCall struct {
	CallID string // default call_fake_<n>
	Name   string
	Input  string
}

// APIError is an OpenAI error response.
type APIError struct {
	Status  int
	Type    string // e.g. invalid_request_error, server_error
	Code    string
	Message string
}

// Text replies with an assistant message.
func Text(s string) Reply { return Reply{Text: s} }

// Think replies with a reasoning summary, then a message.
func Think(summary, text string) Reply { return Reply{Reasoning: summary, Text: text} }

// Call replies with a function call and no message.
func Call(name string, args any) Reply {
	return Reply{Call: &FunctionCall{Name: name, Arguments: args}}
}

// Exec replies with the exec_command call Codex 0.169.0 offers for shell
// commands ({"cmd": "..."}; Codex runs it with bash -lc in the thread's cwd).
func Exec(cmd string) Reply { return Call("exec_command", map[string]string{"cmd": cmd}) }

// Patch replies with the apply_patch call Codex 0.169.0 offers as a
// freeform tool: patch is in Codex's own format ("*** Begin Patch" …
// "*** End Patch"), with paths relative to the thread's cwd.
func Patch(patch string) Reply {
	return Reply{Custom: &CustomCall{Name: "apply_patch", Input: patch}}
}

// Slow replies with text streamed one word per delay.
func Slow(text string, delay time.Duration) Reply { return Reply{Text: text, Delay: delay} }

// Fail replies with an HTTP error.
func Fail(status int, typ, msg string) Reply {
	return Reply{Err: &APIError{Status: status, Type: typ, Message: msg}}
}

// item is an output item being sent: its first form, its deltas, and its
// final form.
type item struct {
	kind   string // reasoning, message, function_call
	id     string
	start  map[string]any
	deltas []string
	final  map[string]any
}

func (r Reply) items(n int) []item {
	var out []item
	if r.Reasoning != "" {
		id := fmt.Sprintf("rs_fake_%d", n)
		out = append(out, item{kind: "reasoning", id: id, deltas: fakeapi.Words(r.Reasoning),
			start: map[string]any{"type": "reasoning", "id": id, "summary": []any{}},
			final: map[string]any{"type": "reasoning", "id": id,
				"summary": []any{map[string]any{"type": "summary_text", "text": r.Reasoning}}}})
	}
	if r.Text != "" || (r.Reasoning == "" && r.Call == nil && r.Custom == nil) {
		id := fmt.Sprintf("msg_fake_%d", n)
		out = append(out, item{kind: "message", id: id, deltas: fakeapi.Words(r.Text),
			start: map[string]any{"type": "message", "id": id, "status": "in_progress",
				"role": "assistant", "content": []any{}},
			final: map[string]any{"type": "message", "id": id, "status": "completed", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}}})
	}
	if r.Call != nil {
		id := fmt.Sprintf("fc_fake_%d", n)
		callID := r.Call.CallID
		if callID == "" {
			callID = fmt.Sprintf("call_fake_%d", n)
		}
		args, err := json.Marshal(r.Call.Arguments)
		if err != nil || r.Call.Arguments == nil {
			args = []byte("{}")
		}
		// Two pieces, as the real API splits arguments anywhere.
		half := len(args) / 2
		out = append(out, item{kind: "function_call", id: id,
			deltas: []string{string(args[:half]), string(args[half:])},
			start: map[string]any{"type": "function_call", "id": id, "call_id": callID,
				"name": r.Call.Name, "arguments": "", "status": "in_progress"},
			final: map[string]any{"type": "function_call", "id": id, "call_id": callID,
				"name": r.Call.Name, "arguments": string(args), "status": "completed"}})
	}
	if r.Custom != nil {
		id := fmt.Sprintf("ctc_fake_%d", n)
		callID := r.Custom.CallID
		if callID == "" {
			callID = fmt.Sprintf("call_fake_%d", n)
		}
		half := len(r.Custom.Input) / 2
		out = append(out, item{kind: "custom_tool_call", id: id,
			deltas: []string{r.Custom.Input[:half], r.Custom.Input[half:]},
			start: map[string]any{"type": "custom_tool_call", "id": id, "call_id": callID,
				"name": r.Custom.Name, "input": "", "status": "in_progress"},
			final: map[string]any{"type": "custom_tool_call", "id": id, "call_id": callID,
				"name": r.Custom.Name, "input": r.Custom.Input, "status": "completed"}})
	}
	return out
}

func (r Reply) usage(req Request) map[string]any {
	in, out := inputTokens(req), 0
	for _, it := range r.items(0) {
		out += len(it.deltas)
	}
	return map[string]any{
		"input_tokens": in, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
		"total_tokens": in + out,
	}
}

// response is the Response object, as the non-streaming answer and inside
// response.created / response.completed.
func response(req Request, id, status string, items []item, usage map[string]any) map[string]any {
	output := make([]any, 0, len(items))
	if status == "completed" {
		for _, it := range items {
			output = append(output, it.final)
		}
	}
	return map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": req.Model, "output": output, "usage": usage}
}

// stream sends the reply as the Responses API's server-sent events.
func (s *Server) stream(w http.ResponseWriter, hr *http.Request, req Request, respID string, n int, r Reply) {
	st := s.Stream(w, hr, r.Delay)
	seq := 0
	send := func(event string, data map[string]any) bool {
		data["type"] = event
		data["sequence_number"] = seq
		seq++
		return st.Event(event, data)
	}
	wait := st.Wait

	items := r.items(n)
	if !send("response.created", map[string]any{"response": response(req, respID, "in_progress", nil, nil)}) {
		return
	}
	for i, it := range items {
		if !send("response.output_item.added", map[string]any{"output_index": i, "item": it.start}) {
			return
		}
		at := map[string]any{"item_id": it.id, "output_index": i}
		with := func(kv ...any) map[string]any {
			m := map[string]any{}
			for k, v := range at {
				m[k] = v
			}
			for j := 0; j+1 < len(kv); j += 2 {
				m[kv[j].(string)] = kv[j+1]
			}
			return m
		}
		var ok bool
		switch it.kind {
		case "reasoning":
			ok = send("response.reasoning_summary_part.added", with("summary_index", 0,
				"part", map[string]any{"type": "summary_text", "text": ""}))
			for _, d := range it.deltas {
				ok = ok && wait() && send("response.reasoning_summary_text.delta", with("summary_index", 0, "delta", d))
			}
			ok = ok && send("response.reasoning_summary_text.done", with("summary_index", 0, "text", r.Reasoning))
		case "message":
			ok = send("response.content_part.added", with("content_index", 0,
				"part", map[string]any{"type": "output_text", "text": "", "annotations": []any{}}))
			for _, d := range it.deltas {
				ok = ok && wait() && send("response.output_text.delta", with("content_index", 0, "delta", d))
			}
			ok = ok && send("response.output_text.done", with("content_index", 0, "text", r.Text))
		case "function_call":
			ok = true
			for _, d := range it.deltas {
				ok = ok && wait() && send("response.function_call_arguments.delta", with("delta", d))
			}
			ok = ok && send("response.function_call_arguments.done", with("arguments", it.final["arguments"]))
		case "custom_tool_call":
			ok = true
			for _, d := range it.deltas {
				ok = ok && wait() && send("response.custom_tool_call_input.delta", with("delta", d))
			}
			ok = ok && send("response.custom_tool_call_input.done", with("input", it.final["input"]))
		}
		if !ok || !send("response.output_item.done", map[string]any{"output_index": i, "item": it.final}) {
			return
		}
	}
	send("response.completed", map[string]any{"response": response(req, respID, "completed", items, r.usage(req))})
}
