package chats

import (
	"encoding/json"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// The schemas of a record at each level (jsonl.Schema): what a page reads
// of it, in one pass and without reflection, as encoding/json decodes it
// into record: encoding/json was two thirds of a page of an indexed chat
// file, a third of it validating each line before decoding it. Anything
// they refuse goes to encoding/json. They do not validate what they skip,
// so a record whose unread members are not valid JSON is shown (the index
// counted it) where encoding/json would have dropped it; what a page passes
// on raw (a tool call's arguments) is validated.
var (
	recordSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(r *record) *string { return &r.ID }),
		jsonl.StringKey("timestamp", func(r *record) *string { return &r.Timestamp }),
		jsonl.StringKey("type", func(r *record) *string { return &r.Type }),
		// Read further by userParts or geminiText.
		jsonl.RawUncheckedKey("content", func(r *record) *json.RawMessage { return &r.Content }),
		jsonl.SliceKey("thoughts", func(r *record) *[]thought { return &r.Thoughts }, thoughtSchema),
		jsonl.SliceKey("toolCalls", func(r *record) *[]toolCall { return &r.ToolCalls }, toolCallSchema),
		jsonl.PtrKey("tokens", func(r *record) **tokens { return &r.Tokens }, tokensSchema),
		jsonl.StringKey("model", func(r *record) *string { return &r.Model }),
	)
	thoughtSchema = jsonl.NewSchema(
		jsonl.StringKey("subject", func(t *thought) *string { return &t.Subject }),
		jsonl.StringKey("description", func(t *thought) *string { return &t.Description }),
	)
	tokensSchema = jsonl.NewSchema(
		jsonl.IntKey("input", func(t *tokens) *int64 { return &t.Input }),
		jsonl.IntKey("output", func(t *tokens) *int64 { return &t.Output }),
		jsonl.IntKey("cached", func(t *tokens) *int64 { return &t.Cached }),
	)
	toolCallSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(c *toolCall) *string { return &c.ID }),
		jsonl.StringKey("name", func(c *toolCall) *string { return &c.Name }),
		// Passed on as the tool_use block's input.
		jsonl.RawKey("args", func(c *toolCall) *json.RawMessage { return &c.Args }),
		jsonl.SliceKey("result", func(c *toolCall) *[]part { return &c.Result }, partSchema),
		jsonl.StringKey("status", func(c *toolCall) *string { return &c.Status }),
	)
	partSchema = jsonl.NewSchema(
		jsonl.StringPtrKey("text", func(p *part) **string { return &p.Text }),
		jsonl.BoolKey("thought", func(p *part) *bool { return &p.Thought }),
		jsonl.PtrKey("functionResponse", func(p *part) **functionResponse { return &p.FunctionResponse }, functionResponseSchema),
	)
	functionResponseSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(r *functionResponse) *string { return &r.ID }),
		jsonl.StringKey("name", func(r *functionResponse) *string { return &r.Name }),
		// Read further by responseText.
		jsonl.RawUncheckedKey("response", func(r *functionResponse) *json.RawMessage { return &r.Response }),
	)
	responseSchema = jsonl.NewSchema(
		jsonl.StringPtrKey("output", func(r *response) **string { return &r.Output }),
		jsonl.StringPtrKey("error", func(r *response) **string { return &r.Error }),
	)
)

// str decodes the JSON string raw; ok is false for any other value.
func str(raw []byte) (string, bool) {
	var s string
	if jsonl.String(raw, 0, &s) == len(raw) {
		return s, true
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	return s, json.Unmarshal(raw, &s) == nil
}

// response is what responseText reads of a function response.
type response struct {
	Output *string `json:"output"`
	Error  *string `json:"error"`
}

// quickRecord is decode's fast path.
func quickRecord(raw []byte) (record, bool) {
	var r record
	ok := recordSchema.Read(raw, &r)
	return r, ok
}

// quickParts is the parts of the content c when it is a list of them.
func quickParts(c []byte) ([]part, bool) {
	var parts []part
	end := jsonl.Array(c, 0, func() { parts = []part{} }, func(at int) int {
		parts = append(parts, part{})
		return partSchema.ReadAt(c, at, &parts[len(parts)-1])
	})
	if !jsonl.Whole(c, end) {
		return nil, false
	}
	return parts, true
}

// quickResponse is a function response read as responseText reads it;
// zero when not ok.
func quickResponse(b []byte) (response, bool) {
	var r response
	ok := responseSchema.Read(b, &r)
	return r, ok
}
