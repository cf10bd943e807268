package chats

import (
	"encoding/json"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// The schemas (jsonl.Schema) of what a replay and a page read, each as
// encoding/json decodes it into its type (schema_fuzz_test.go holds them
// to that), in one pass and without reflection: encoding/json was 90% of
// a first read, and two thirds of a page of an indexed chat file. What
// they refuse goes to encoding/json, into the same type. They do not
// validate what they skip, so a record whose unread members are not valid
// JSON is counted and shown where encoding/json would have dropped it;
// what a page passes on raw (a tool call's arguments) is validated.
var (
	lineSchema = jsonl.NewSchema(append([]jsonl.Field[chatLine]{
		jsonl.BorrowedKey("$set", func(l *chatLine) *json.RawMessage { return &l.Set }),
		jsonl.StringPtrKey("sessionId", func(l *chatLine) **string { return &l.SessionID }),
		jsonl.StringPtrKey("projectHash", func(l *chatLine) **string { return &l.ProjectHash }),
		jsonl.StringKey("startTime", func(l *chatLine) *string { return &l.StartTime }),
		jsonl.StringKey("lastUpdated", func(l *chatLine) *string { return &l.LastUpdated }),
	}, headKeys(func(l *chatLine) *recordHead { return &l.recordHead })...)...)
	setSchema = jsonl.NewSchema(
		jsonl.StringKey("sessionId", func(s *chatSet) *string { return &s.SessionID }),
		jsonl.StringKey("projectHash", func(s *chatSet) *string { return &s.ProjectHash }),
		jsonl.StringKey("startTime", func(s *chatSet) *string { return &s.StartTime }),
		jsonl.StringKey("lastUpdated", func(s *chatSet) *string { return &s.LastUpdated }),
		jsonl.BorrowedKey("messages", func(s *chatSet) *json.RawMessage { return &s.Messages }),
	)
	headSchema         = jsonl.NewSchema(headKeys(func(h *recordHead) *recordHead { return h })...)
	callIDSchema       = jsonl.NewSchema(jsonl.Key("id", func(c *callID) *text { return &c.ID }, readText))
	thoughtCountSchema = jsonl.NewSchema[struct{}]() // thoughts counted, not read

	recordSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(r *record) *string { return &r.ID }),
		jsonl.StringKey("timestamp", func(r *record) *string { return &r.Timestamp }),
		jsonl.StringKey("type", func(r *record) *string { return &r.Type }),
		jsonl.BorrowedKey("content", func(r *record) *json.RawMessage { return &r.Content }),
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
		jsonl.Key("text", func(p *part) *text { return &p.Text }, readText),
		jsonl.BoolKey("thought", func(p *part) *bool { return &p.Thought }),
		jsonl.Key("functionResponse", func(p *part) *functionResponse { return &p.FunctionResponse }, readFunctionResponse),
	)
	functionResponseSchema = jsonl.NewSchema(
		jsonl.Key("id", func(r *functionResponse) *text { return &r.ID }, readText),
		jsonl.Key("name", func(r *functionResponse) *text { return &r.Name }, readText),
		// Read further by responseText, not by a replay.
		jsonl.BorrowedKey("response", func(r *functionResponse) *json.RawMessage { return &r.Response }),
	)
	responseSchema = jsonl.NewSchema(
		jsonl.StringPtrKey("output", func(r *response) **string { return &r.Output }),
		jsonl.StringPtrKey("error", func(r *response) **string { return &r.Error }),
	)
)

// headKeys are the keys of a record a replay reads, in a T that holds a
// recordHead (a line, or an element of a $set's list).
func headKeys[T any](h func(*T) *recordHead) []jsonl.Field[T] {
	return []jsonl.Field[T]{
		jsonl.Key("id", func(t *T) *text { return &h(t).ID }, readText),
		jsonl.Key("type", func(t *T) *text { return &h(t).Type }, readText),
		jsonl.BorrowedKey("content", func(t *T) *json.RawMessage { return &h(t).Content }),
		jsonl.SliceKey("thoughts", func(t *T) *[]struct{} { return &h(t).Thoughts }, thoughtCountSchema),
		jsonl.Key("toolCalls", func(t *T) *[]callID { return &h(t).ToolCalls }, readCallIDs),
	}
}

// readCallIDs is SliceKey's reading of the tool calls' ids into the room
// the list of an earlier record left: a new list for each record was a
// third of what a cold first page allocated.
func readCallIDs(b []byte, at int, p *[]callID) int {
	*p = (*p)[:0]
	return jsonl.Array(b, at, func() { *p = append(*p, callID{})[:0] }, func(at int) int {
		*p = append(*p, callID{})
		return callIDSchema.ReadAt(b, at, &(*p)[len(*p)-1])
	})
}

// readParts reads the content list c into parts (emptied), by partSchema
// or else by encoding/json, whose error it returns.
func readParts(c []byte, parts []part) ([]part, error) {
	end := jsonl.Array(c, 0, func() { parts = append(parts, part{})[:0] }, func(at int) int {
		parts = append(parts, part{})
		return partSchema.ReadAt(c, at, &parts[len(parts)-1])
	})
	if jsonl.Whole(c, end) {
		return parts, nil
	}
	var decoded []part // not into parts, whose elements it would not zero
	err := json.Unmarshal(c, &decoded)
	return decoded, err
}
