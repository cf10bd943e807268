package transcript

import (
	"encoding/json"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// The schemas of a message line, at each level (jsonl.Schema): what
// quickLine reads of it, as encoding/json decodes it into decodedLine.
var (
	lineSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(l *decodedLine) *string { return &l.Type }),
		jsonl.StringKey("uuid", func(l *decodedLine) *string { return &l.UUID }),
		jsonl.StringKey("timestamp", func(l *decodedLine) *string { return &l.Timestamp }),
		jsonl.BoolKey("isMeta", func(l *decodedLine) *bool { return &l.IsMeta }),
		jsonl.BoolKey("isSidechain", func(l *decodedLine) *bool { return &l.IsSidechain }),
		jsonl.PtrKey("message", func(l *decodedLine) **decodedMessage { return &l.Message }, messageSchema),
	)
	// A typed prompt's string "content" is refused: it goes the long way.
	messageSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(m *decodedMessage) *string { return &m.ID }),
		jsonl.StringKey("role", func(m *decodedMessage) *string { return &m.Role }),
		jsonl.StringKey("model", func(m *decodedMessage) *string { return &m.Model }),
		jsonl.SliceKey("content", func(m *decodedMessage) *[]apiBlock { return &m.Content }, blockSchema),
		jsonl.PtrKey("usage", func(m *decodedMessage) **rpc.Usage { return &m.Usage }, usageSchema),
	)
	// What a page passes on raw (a tool's input, a tool result's content,
	// an image's source) is validated.
	blockSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(b *apiBlock) *string { return &b.Type }),
		jsonl.StringKey("text", func(b *apiBlock) *string { return &b.Text }),
		jsonl.StringKey("thinking", func(b *apiBlock) *string { return &b.Thinking }),
		jsonl.StringKey("id", func(b *apiBlock) *string { return &b.ID }),
		jsonl.StringKey("name", func(b *apiBlock) *string { return &b.Name }),
		jsonl.RawKey("input", func(b *apiBlock) *json.RawMessage { return &b.Input }),
		jsonl.StringKey("tool_use_id", func(b *apiBlock) *string { return &b.ToolUseID }),
		jsonl.RawKey("content", func(b *apiBlock) *json.RawMessage { return &b.Content }),
		jsonl.BoolKey("is_error", func(b *apiBlock) *bool { return &b.IsError }),
		jsonl.RawKey("source", func(b *apiBlock) *json.RawMessage { return &b.Source }),
	)
	usageSchema = jsonl.NewSchema(
		jsonl.IntKey("input_tokens", func(u *rpc.Usage) *int64 { return &u.InputTokens }),
		jsonl.IntKey("output_tokens", func(u *rpc.Usage) *int64 { return &u.OutputTokens }),
		jsonl.IntKey("cache_creation_input_tokens", func(u *rpc.Usage) *int64 { return &u.CacheCreationInputTokens }),
		jsonl.IntKey("cache_read_input_tokens", func(u *rpc.Usage) *int64 { return &u.CacheReadInputTokens }),
	)
)

// quickLine decodes a message line as encoding/json decodes it into
// decodedLine, in one pass and without reflection (lineSchema): the
// decoder, which validated each line before decoding it, was two thirds of
// a page of an indexed transcript. It takes the shapes Claude Code writes;
// anything else (ok false) goes to encoding/json. It does not validate
// what it skips, so a line whose unread members are not valid JSON is
// shown (the index counted it) where encoding/json would have dropped it.
func quickLine(b []byte) (decodedLine, bool) {
	var l decodedLine
	ok := lineSchema.Read(b, &l)
	return l, ok
}
