package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Line is what cdevd reads of a Claude JSONL line (transcript or
// stream-json stdout): its top-level members, each as written (borrowed
// from the line read), decoded only where used. A scan reads every line of
// a transcript for its type and branch alone: a string allocated for each
// member made the first index build 2.5 times slower (BenchmarkClassify:
// 26 allocations for 10 MB, against 79,413).
type Line struct {
	Type      json.RawMessage `json:"type"`
	UUID      json.RawMessage `json:"uuid"`
	SessionID json.RawMessage `json:"sessionId"`
	// StdoutSessionID is the session id as stdout lines spell it.
	StdoutSessionID json.RawMessage `json:"session_id"`
	Timestamp       json.RawMessage `json:"timestamp"`
	GitBranch       json.RawMessage `json:"gitBranch"`
	IsMeta          bool            `json:"isMeta"`
	// IsSidechain marks a sub-agent's messages: not the main conversation.
	IsSidechain bool `json:"isSidechain"`
	// IsCompactSummary marks the user message that replaces a compacted
	// conversation: a message, but not a prompt the user typed.
	IsCompactSummary bool `json:"isCompactSummary"`
	// Titles, from "summary", "custom-title" (/rename) and "ai-title" lines.
	Summary     json.RawMessage `json:"summary"`
	CustomTitle json.RawMessage `json:"customTitle"`
	AITitle     json.RawMessage `json:"aiTitle"`
	// Message is the API message.
	Message json.RawMessage `json:"message"`
}

// str is the string raw holds, "" for another value (as a decoding that
// forgives type errors leaves a string field).
func str(raw json.RawMessage) string {
	if len(raw) >= 2 && raw[0] == '"' {
		if s, ok := jsonl.Unquote(raw[1 : len(raw)-1]); ok {
			return s
		}
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// is reports whether raw holds the string s, comparing it as written
// where it has no escape.
func is(raw json.RawMessage, s string) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return str(raw) == s
	}
	return len(raw) == len(s)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == s
}

// message is the Anthropic API message a user or assistant line carries.
type message struct {
	ID      string     `json:"id"`
	Role    string     `json:"role"`
	Model   string     `json:"model"`
	Content content    `json:"content"`
	Usage   *rpc.Usage `json:"usage"`
}

// content is a message's content: a typed prompt's string (one text
// block, none when empty) or an array of blocks.
type content []apiBlock

// apiBlock is one content block of an API message.
type apiBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    json.RawMessage `json:"source"`
}

// UnmarshalJSON decodes content as readContent reads it, forgiving what
// is not a string or an array of blocks (no content), and fields of the
// wrong type (left zero), so that a page never depends on them.
func (c *content) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = textContent(s)
		return nil
	}
	var blocks []apiBlock
	_ = json.Unmarshal(b, &blocks)
	*c = blocks
	return nil
}

func textContent(s string) content {
	if s == "" {
		return content{}
	}
	return content{{Type: string(rpc.BlockText), Text: s}}
}

// readContent is content's reading for messageSchema.
func readContent(b []byte, at int, c *content) int {
	if b[at] == '"' {
		var s string
		e := jsonl.String(b, at, &s)
		*c = textContent(s)
		return e
	}
	return jsonl.Array(b, at, func() { *c = content{} }, func(at int) int {
		*c = append(*c, apiBlock{})
		return blockSchema.ReadAt(b, at, &(*c)[len(*c)-1])
	})
}

// The schemas of a line, its message and what that holds: what
// encoding/json decodes into Line and message (FuzzSchemas holds them to
// it), read in one pass and without reflection: the decoder was two thirds
// of a page of an indexed transcript, and 97% of a first index build
// (pprof). A line's message is not validated; the one a page shows is
// read in its turn.
var (
	lineSchema = jsonl.NewSchema(
		raw("type", func(l *Line) *json.RawMessage { return &l.Type }),
		raw("uuid", func(l *Line) *json.RawMessage { return &l.UUID }),
		raw("sessionId", func(l *Line) *json.RawMessage { return &l.SessionID }),
		raw("session_id", func(l *Line) *json.RawMessage { return &l.StdoutSessionID }),
		raw("timestamp", func(l *Line) *json.RawMessage { return &l.Timestamp }),
		raw("gitBranch", func(l *Line) *json.RawMessage { return &l.GitBranch }),
		jsonl.BoolKey("isMeta", func(l *Line) *bool { return &l.IsMeta }),
		jsonl.BoolKey("isSidechain", func(l *Line) *bool { return &l.IsSidechain }),
		jsonl.BoolKey("isCompactSummary", func(l *Line) *bool { return &l.IsCompactSummary }),
		raw("summary", func(l *Line) *json.RawMessage { return &l.Summary }),
		raw("customTitle", func(l *Line) *json.RawMessage { return &l.CustomTitle }),
		raw("aiTitle", func(l *Line) *json.RawMessage { return &l.AITitle }),
		raw("message", func(l *Line) *json.RawMessage { return &l.Message }),
	)
	messageSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(m *message) *string { return &m.ID }),
		jsonl.StringKey("role", func(m *message) *string { return &m.Role }),
		jsonl.StringKey("model", func(m *message) *string { return &m.Model }),
		jsonl.Key("content", func(m *message) *content { return &m.Content }, readContent),
		jsonl.PtrKey("usage", func(m *message) **rpc.Usage { return &m.Usage }, usageSchema),
	)
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

// raw is a member of Line, borrowed as written.
var raw = jsonl.BorrowedKey[Line]

// read fills *dst as encoding/json decodes b into it, a value of another
// type left zero: by s where it can vouch for that (the keys of the lines
// before remembered in sh, nil for none), else by encoding/json. Only
// malformed JSON is an error.
func read[T any](s *jsonl.Schema[T], sh *jsonl.Shape, b []byte, dst *T) error {
	if s.ReadShaped(sh, b, dst) {
		return nil
	}
	var te *json.UnmarshalTypeError
	if err := json.Unmarshal(b, dst); err != nil && !errors.As(err, &te) {
		return err
	}
	return nil
}

// ParseLine decodes one JSONL line; its members are b's bytes, not
// copies. Only malformed JSON is an error.
func ParseLine(b []byte) (Line, error) {
	var l Line
	if err := read(lineSchema, nil, b, &l); err != nil {
		return Line{}, fmt.Errorf("parse transcript line: %w", err)
	}
	return l, nil
}

// isMessage reports whether ToMessage accepts l. It looks only at the line,
// not at the blocks, so indexing and counting stay cheap and agree with it.
func isMessage(l Line) bool {
	return (is(l.Type, "user") || is(l.Type, "assistant")) && !l.IsMeta && !l.IsSidechain &&
		len(l.Message) > 0 && string(l.Message) != "null"
}

// now is the clock for messages that carry no timestamp (stdout lines).
var now = time.Now

// ToMessage converts a user/assistant line (from a transcript or from the
// CLI's stdout) to the normalized rpc.Message; ok is false for lines that are
// not conversation messages (attachment, queue-operation, last-prompt,
// summary, meta and sub-agent lines…).
//
// Blocks of a type the protocol does not know (redacted_thinking, server
// tool blocks…) are left out rather than shown as text: clients decode only
// the five protocol block types, and raw JSON would be noise. The message is
// still returned, possibly with no blocks, so that message counts and paging
// never depend on block contents.
func ToMessage(sessionID string, l Line) (m rpc.Message, ok bool) {
	var am message
	if !isMessage(l) || read(messageSchema, nil, l.Message, &am) != nil {
		return rpc.Message{}, false
	}
	out := make([]rpc.ContentBlock, 0, len(am.Content))
	for _, b := range am.Content {
		out = appendBlock(out, b)
	}
	typ, uuid := rpc.MessageAssistant, str(l.UUID)
	if is(l.Type, "user") {
		typ = rpc.MessageUser
	}
	return rpc.Message{
		ID:        cmp.Or(uuid, am.ID),
		SessionID: cmp.Or(sessionID, str(l.SessionID), str(l.StdoutSessionID)),
		Type:      typ,
		UUID:      uuid,
		Timestamp: history.Timestamp(str(l.Timestamp), now),
		Message: rpc.MessageBody{
			ID:      am.ID,
			Role:    cmp.Or(am.Role, string(typ)),
			Content: out,
			Model:   am.Model,
			Usage:   am.Usage,
		},
	}, true
}

// appendBlock appends b to out when it is of a type the protocol knows.
func appendBlock(out []rpc.ContentBlock, b apiBlock) []rpc.ContentBlock {
	switch t := rpc.BlockType(b.Type); t {
	case rpc.BlockText:
		out = append(out, rpc.ContentBlock{Type: t, Text: b.Text})
	case rpc.BlockThinking:
		out = append(out, rpc.ContentBlock{Type: t, Thinking: b.Thinking})
	case rpc.BlockToolUse:
		out = append(out, rpc.ContentBlock{Type: t, ID: b.ID, Name: b.Name, Input: b.Input})
	case rpc.BlockToolResult:
		out = append(out, rpc.ContentBlock{Type: t, ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError})
	case rpc.BlockImage:
		out = append(out, rpc.ContentBlock{Type: t, Source: b.Source})
	}
	return out
}

// notTyped are the openings of user-message text the CLI writes itself
// (slash commands and their output, shell escapes, reminders).
var notTyped = []string{"<command-", "<local-command-", "<bash-", "<system-reminder>"}

// prompt returns the text the user typed in l, or "" when l is not a typed
// prompt (a tool result, a command, a compaction summary…).
func prompt(l Line) string {
	var am message
	if !is(l.Type, "user") || !isMessage(l) || l.IsCompactSummary || read(messageSchema, nil, l.Message, &am) != nil {
		return ""
	}
	text := ""
	for _, b := range am.Content {
		switch rpc.BlockType(b.Type) {
		case rpc.BlockToolResult:
			return ""
		case rpc.BlockText:
			if text == "" {
				text = strings.TrimSpace(b.Text)
			}
		}
	}
	for _, p := range notTyped {
		if strings.HasPrefix(text, p) {
			return ""
		}
	}
	return text
}

// maxDirName is where Claude shortens long folder names (adding a hash).
const maxDirName = 200

// EncodeDir is the name Claude gives a working directory's folder under
// ~/.claude/projects: dir with every non-alphanumeric character as '-'.
// Like the CLI (JavaScript), it works on UTF-16 code units, and a name longer
// than 200 units is cut there and suffixed with '-' and a base-36 hash of dir.
func EncodeDir(dir string) string {
	units := utf16.Encode([]rune(dir))
	name := make([]byte, len(units))
	var hash int32
	for i, u := range units {
		hash = hash*31 + int32(u)
		if u < utf8.RuneSelf && (unicode.IsLetter(rune(u)) || unicode.IsDigit(rune(u))) {
			name[i] = byte(u)
		} else {
			name[i] = '-'
		}
	}
	if len(name) <= maxDirName {
		return string(name)
	}
	h := int64(hash)
	if h < 0 {
		h = -h
	}
	return string(name[:maxDirName]) + "-" + strconv.FormatInt(h, 36)
}
