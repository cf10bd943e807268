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

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Line is the subset of a Claude JSONL line (transcript or stream-json
// stdout) cdevd reads.
type Line struct {
	Type       string          `json:"type"`
	UUID       string          `json:"uuid"`
	ParentUUID string          `json:"parentUuid"`
	SessionID  string          `json:"sessionId"`
	Timestamp  string          `json:"timestamp"`
	GitBranch  string          `json:"gitBranch"`
	Cwd        string          `json:"cwd"`
	Message    json.RawMessage `json:"message"`
	IsMeta     bool            `json:"isMeta"`
	// IsSidechain marks a sub-agent's messages: not the main conversation.
	IsSidechain bool `json:"isSidechain"`
	// IsCompactSummary marks the user message that replaces a compacted
	// conversation: a message, but not a prompt the user typed.
	IsCompactSummary bool `json:"isCompactSummary"`
	// Titles, from "summary", "custom-title" (/rename) and "ai-title" lines.
	Summary     string `json:"summary"`
	CustomTitle string `json:"customTitle"`
	AITitle     string `json:"aiTitle"`
}

// ParseLine decodes one JSONL line. stdout lines spell the session id
// session_id; it is folded into SessionID. A field of an unexpected type is
// left zero rather than failing the line: only malformed JSON is an error.
func ParseLine(b []byte) (Line, error) {
	var l struct {
		Line
		StdoutSessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(b, &l); err != nil && !isTypeError(err) {
		return Line{}, fmt.Errorf("parse transcript line: %w", err)
	}
	if l.SessionID == "" {
		l.SessionID = l.StdoutSessionID
	}
	return l.Line, nil
}

// isMessage reports whether ToMessage accepts l. It looks only at the line,
// not at the blocks, so indexing and counting stay cheap and agree with it.
func isMessage(l Line) bool {
	return (l.Type == "user" || l.Type == "assistant") && !l.IsMeta && !l.IsSidechain &&
		len(l.Message) > 0 && string(l.Message) != "null"
}

// apiMessage is the Anthropic API message a user or assistant line carries.
type apiMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *rpc.Usage      `json:"usage"`
}

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
// never depend on block contents; for the same reason a field of an
// unexpected type is dropped, not the whole message.
func ToMessage(sessionID string, l Line) (m rpc.Message, ok bool) {
	if !isMessage(l) {
		return rpc.Message{}, false
	}
	var am apiMessage
	if err := json.Unmarshal(l.Message, &am); err != nil && !isTypeError(err) {
		return rpc.Message{}, false
	}
	if sessionID == "" {
		sessionID = l.SessionID
	}
	role := am.Role
	if role == "" {
		role = l.Type
	}
	id := l.UUID
	if id == "" {
		id = am.ID
	}
	return rpc.Message{
		ID:        id,
		SessionID: sessionID,
		Type:      rpc.MessageType(l.Type),
		UUID:      l.UUID,
		Timestamp: history.Timestamp(l.Timestamp, now),
		Message: rpc.MessageBody{
			ID:      am.ID,
			Role:    role,
			Content: blocks(am.Content),
			Model:   am.Model,
			Usage:   am.Usage,
		},
	}, true
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// blocks converts API content: a plain string (a typed user prompt) or an
// array of blocks. The result is never nil, so it encodes as [].
func blocks(raw json.RawMessage) []rpc.ContentBlock {
	out := []rpc.ContentBlock{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return out
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			out = append(out, rpc.ContentBlock{Type: rpc.BlockText, Text: s})
		}
		return out
	}
	var in []json.RawMessage
	if json.Unmarshal(raw, &in) != nil {
		return out
	}
	for _, r := range in {
		var b apiBlock
		if err := json.Unmarshal(r, &b); err != nil && !isTypeError(err) {
			continue
		}
		out = appendBlock(out, b)
	}
	return out
}

// appendBlock appends b to out when it is of a type the protocol knows.
func appendBlock(out []rpc.ContentBlock, b apiBlock) []rpc.ContentBlock {
	switch rpc.BlockType(b.Type) {
	case rpc.BlockText:
		out = append(out, rpc.ContentBlock{Type: rpc.BlockText, Text: b.Text})
	case rpc.BlockThinking:
		out = append(out, rpc.ContentBlock{Type: rpc.BlockThinking, Thinking: b.Thinking})
	case rpc.BlockToolUse:
		out = append(out, rpc.ContentBlock{Type: rpc.BlockToolUse, ID: b.ID, Name: b.Name, Input: b.Input})
	case rpc.BlockToolResult:
		out = append(out, rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError})
	case rpc.BlockImage:
		out = append(out, rpc.ContentBlock{Type: rpc.BlockImage, Source: b.Source})
	}
	return out
}

// decodedLine is a message line decoded whole, its message and blocks
// included: one pass of encoding/json where ParseLine, ToMessage and blocks
// take four (each validates the bytes it is given again). Paging spends
// nearly all its time decoding (pprof of BenchmarkMessagesPage).
type decodedLine struct {
	Type        string          `json:"type"`
	UUID        string          `json:"uuid"`
	Timestamp   string          `json:"timestamp"`
	IsMeta      bool            `json:"isMeta"`
	IsSidechain bool            `json:"isSidechain"`
	Message     *decodedMessage `json:"message"`
}

type decodedMessage struct {
	ID      string     `json:"id"`
	Role    string     `json:"role"`
	Model   string     `json:"model"`
	Content []apiBlock `json:"content"`
	Usage   *rpc.Usage `json:"usage"`
}

// decodeMessage is ToMessage(sessionID, ParseLine(b)) for a non-empty
// sessionID, in one decoding pass when it can be: when quickLine takes b,
// or b has the shape classify vouches for (so no repeated "message"
// member, which one pass would merge where ParseLine keeps the last; nor
// does quickLine take one) and encoding/json decodes it without any error,
// into a message. Anything else (a prompt typed as a string, a field of an
// unexpected type, a line that is not a message) takes the long way.
func decodeMessage(sessionID string, b []byte) (rpc.Message, bool) {
	l, ok := quickLine(b)
	if !ok {
		_, ok = classify(b)
		ok = ok && json.Unmarshal(b, &l) == nil
	}
	if ok && l.Message != nil &&
		(l.Type == "user" || l.Type == "assistant") && !l.IsMeta && !l.IsSidechain {
		am := l.Message
		out := make([]rpc.ContentBlock, 0, len(am.Content))
		for _, bl := range am.Content {
			out = appendBlock(out, bl)
		}
		return rpc.Message{
			ID:        cmp.Or(l.UUID, am.ID),
			SessionID: sessionID,
			Type:      rpc.MessageType(l.Type),
			UUID:      l.UUID,
			Timestamp: history.Timestamp(l.Timestamp, now),
			Message: rpc.MessageBody{
				ID:      am.ID,
				Role:    cmp.Or(am.Role, l.Type),
				Content: out,
				Model:   am.Model,
				Usage:   am.Usage,
			},
		}, true
	}
	pl, err := ParseLine(b)
	if err != nil {
		return rpc.Message{}, false
	}
	return ToMessage(sessionID, pl)
}

// notTyped are the openings of user-message text the CLI writes itself
// (slash commands and their output, shell escapes, reminders).
var notTyped = []string{"<command-", "<local-command-", "<bash-", "<system-reminder>"}

// prompt returns the text the user typed in l, or "" when l is not a typed
// prompt (a tool result, a command, a compaction summary…).
func prompt(l Line) string {
	if l.Type != "user" || !isMessage(l) || l.IsCompactSummary {
		return ""
	}
	text := ""
	for _, b := range blocksOf(l) {
		switch b.Type {
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

func blocksOf(l Line) []rpc.ContentBlock {
	var am apiMessage
	if err := json.Unmarshal(l.Message, &am); err != nil && !isTypeError(err) {
		return nil
	}
	return blocks(am.Content)
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
