package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
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

// Line is a Claude JSONL line's top-level members as written (borrowed
// from it), decoded where used: a scan reads a line for its type and branch
// alone, and a string allocated for each member made it 2.5 times slower
// (BenchmarkClassify: 79,413 allocations for 10 MB, against 26).
type Line struct {
	Type             json.RawMessage `json:"type"`
	UUID             json.RawMessage `json:"uuid"`
	SessionID        json.RawMessage `json:"sessionId"`
	StdoutSessionID  json.RawMessage `json:"session_id"` // as stdout spells it
	Timestamp        json.RawMessage `json:"timestamp"`
	GitBranch        json.RawMessage `json:"gitBranch"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`      // a sub-agent's message
	IsCompactSummary bool            `json:"isCompactSummary"` // a message, but no typed prompt
	Summary          json.RawMessage `json:"summary"`
	CustomTitle      json.RawMessage `json:"customTitle"`
	AITitle          json.RawMessage `json:"aiTitle"`
	Message          json.RawMessage `json:"message"` // the API message
}

// str is the string raw holds, "" for another value (a type error forgiven).
func str(raw json.RawMessage) string {
	var s string
	if len(raw) < 2 || raw[0] != '"' || jsonl.String(raw, 0, &s) >= 0 {
		return s
	}
	_ = json.Unmarshal(raw, &s)
	return s
}

// is reports whether raw holds the string s, without decoding it.
func is(raw json.RawMessage, s string) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return str(raw) == s
	}
	return len(raw) == len(s)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == s
}

// message is the Anthropic API message of a user or assistant line.
type message struct {
	ID      string     `json:"id"`
	Role    string     `json:"role"`
	Model   string     `json:"model"`
	Content content    `json:"content"`
	Usage   *rpc.Usage `json:"usage"`
}

// content is a typed prompt's string (a text block, none if empty) or blocks,
// of the protocol's five types only, each with its type's fields.
type content []rpc.ContentBlock

// UnmarshalJSON decodes content, forgiving type errors (left zero or empty).
func (c *content) UnmarshalJSON(b []byte) error {
	var s string
	var blocks []rpc.ContentBlock
	if json.Unmarshal(b, &s) != nil {
		_ = json.Unmarshal(b, &blocks)
	} else if s != "" {
		blocks = []rpc.ContentBlock{{Type: rpc.BlockText, Text: s}}
	}
	*c = content{}
	for _, bl := range blocks {
		*c = c.with(bl)
	}
	return nil
}

// readContent reads blocks, leaving a typed prompt's string to encoding/json.
func readContent(b []byte, at int, c *content) int {
	return jsonl.Array(b, at, func() { *c = content{} }, func(at int) int {
		var bl rpc.ContentBlock
		e := blockSchema.ReadAt(b, at, &bl)
		*c = c.with(bl)
		return e
	})
}

// with is c and b, of its type's fields only, if the protocol knows its type.
func (c content) with(b rpc.ContentBlock) content {
	switch b.Type {
	case rpc.BlockText:
		return append(c, rpc.ContentBlock{Type: b.Type, Text: b.Text})
	case rpc.BlockThinking:
		return append(c, rpc.ContentBlock{Type: b.Type, Thinking: b.Thinking})
	case rpc.BlockToolUse:
		return append(c, rpc.ContentBlock{Type: b.Type, ID: b.ID, Name: b.Name, Input: b.Input})
	case rpc.BlockToolResult:
		return append(c, rpc.ContentBlock{Type: b.Type, ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError})
	case rpc.BlockImage:
		return append(c, rpc.ContentBlock{Type: b.Type, Source: b.Source})
	}
	return c
}

// The schemas: encoding/json's decoding (FuzzSchemas holds them to it) without
// reflection, which was two thirds of an indexed page, 97% of a scan (pprof).
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
	// Members Claude does not write are left to encoding/json.
	blockSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(b *rpc.ContentBlock) *string { return (*string)(&b.Type) }),
		jsonl.StringKey("text", func(b *rpc.ContentBlock) *string { return &b.Text }),
		jsonl.StringKey("thinking", func(b *rpc.ContentBlock) *string { return &b.Thinking }),
		jsonl.StringKey("id", func(b *rpc.ContentBlock) *string { return &b.ID }),
		jsonl.StringKey("name", func(b *rpc.ContentBlock) *string { return &b.Name }),
		jsonl.RawKey("input", func(b *rpc.ContentBlock) *json.RawMessage { return &b.Input }),
		jsonl.StringKey("tool_use_id", func(b *rpc.ContentBlock) *string { return &b.ToolUseID }),
		jsonl.RawKey("content", func(b *rpc.ContentBlock) *json.RawMessage { return &b.Content }),
		jsonl.BoolKey("is_error", func(b *rpc.ContentBlock) *bool { return &b.IsError }),
		jsonl.RawKey("source", func(b *rpc.ContentBlock) *json.RawMessage { return &b.Source }),
		jsonl.FuncKey("exit_code", refuse[rpc.ContentBlock]),
		jsonl.FuncKey("diffs", refuse[rpc.ContentBlock]),
	)
	usageSchema = jsonl.NewSchema(
		jsonl.IntKey("input_tokens", func(u *rpc.Usage) *int64 { return &u.InputTokens }),
		jsonl.IntKey("output_tokens", func(u *rpc.Usage) *int64 { return &u.OutputTokens }),
		jsonl.IntKey("cache_creation_input_tokens", func(u *rpc.Usage) *int64 { return &u.CacheCreationInputTokens }),
		jsonl.IntKey("cache_read_input_tokens", func(u *rpc.Usage) *int64 { return &u.CacheReadInputTokens }),
	)
)

var raw = jsonl.BorrowedKey[Line]

func refuse[T any]([]byte, int, *T) int { return -1 }

// read decodes b into *dst, type errors forgiven, by s (with sh, the keys of
// the lines before) where s vouches for it, else by encoding/json.
func read[T any](s *jsonl.Schema[T], sh *jsonl.Shape, b []byte, dst *T) bool {
	if s.ReadShaped(sh, b, dst) {
		return true
	}
	var te *json.UnmarshalTypeError
	err := json.Unmarshal(b, dst)
	return err == nil || errors.As(err, &te)
}

// ParseLine decodes a line into members that are b's bytes, not copies.
func ParseLine(b []byte) (Line, error) {
	if !json.Valid(b) {
		return Line{}, errors.New("transcript line: malformed JSON")
	}
	return parse(b), nil
}

// parse is ParseLine not validating what the schema skips, for a page or a count.
func parse(b []byte) Line {
	var l Line
	read(lineSchema, nil, b, &l)
	return l
}

// isMessage is whether ToMessage takes l, from l alone: a scan counts it cheaply.
func isMessage(l Line) bool {
	return (is(l.Type, "user") || is(l.Type, "assistant")) && !l.IsMeta && !l.IsSidechain &&
		len(l.Message) > 0 && string(l.Message) != "null"
}

var now = time.Now // the clock of messages without a timestamp (stdout's)

// ToMessage converts a user or assistant line to an rpc.Message; ok is false
// for other lines (attachment, summary, meta, sub-agent…). A message is kept
// even with no blocks, so that counts and paging never depend on them.
func ToMessage(sessionID string, l Line) (m rpc.Message, ok bool) {
	var am message
	if !isMessage(l) || !read(messageSchema, nil, l.Message, &am) {
		return rpc.Message{}, false
	}
	typ, uuid := rpc.MessageType(str(l.Type)), str(l.UUID)
	return rpc.Message{
		ID:        cmp.Or(uuid, am.ID),
		SessionID: cmp.Or(sessionID, str(l.SessionID), str(l.StdoutSessionID)),
		Type:      typ,
		UUID:      uuid,
		Timestamp: history.Timestamp(str(l.Timestamp), now),
		Message: rpc.MessageBody{
			ID:      am.ID,
			Role:    cmp.Or(am.Role, string(typ)),
			Content: append(content{}, am.Content...), // [], not null, when none
			Model:   am.Model,
			Usage:   am.Usage,
		},
	}, true
}

// notTyped open the user messages the CLI writes itself (commands and
// their output, shell escapes, reminders).
var notTyped = []string{"<command-", "<local-command-", "<bash-", "<system-reminder>"}

// prompt is the text the user typed in l; "" for a tool result, a command…
func prompt(l Line) string {
	var am message
	if !is(l.Type, "user") || !isMessage(l) || l.IsCompactSummary || !read(messageSchema, nil, l.Message, &am) {
		return ""
	}
	text := ""
	for _, b := range am.Content {
		if b.Type == rpc.BlockToolResult {
			return ""
		}
		if text == "" && b.Type == rpc.BlockText {
			text = strings.TrimSpace(b.Text)
		}
	}
	if slices.ContainsFunc(notTyped, func(p string) bool { return strings.HasPrefix(text, p) }) {
		return ""
	}
	return text
}

const maxDirName = 200 // where Claude shortens a folder's name

// EncodeDir is Claude's name for dir's folder in ~/.claude/projects: dir with
// each non-alphanumeric as '-', counted in UTF-16 units as JavaScript does,
// cut at 200 and suffixed with '-' and a base-36 hash of dir if longer.
func EncodeDir(dir string) string {
	units := utf16.Encode([]rune(dir))
	name := make([]byte, len(units))
	var hash int32
	for i, u := range units {
		hash = hash*31 + int32(u)
		name[i] = '-'
		if u < utf8.RuneSelf && (unicode.IsLetter(rune(u)) || unicode.IsDigit(rune(u))) {
			name[i] = byte(u)
		}
	}
	if len(name) <= maxDirName {
		return string(name)
	}
	h := int64(hash)
	return string(name[:maxDirName]) + "-" + strconv.FormatInt(max(h, -h), 36)
}
