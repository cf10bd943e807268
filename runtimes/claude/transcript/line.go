package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
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
	// IsSidechain marks a sub-agent's messages, which are not part of the
	// main conversation.
	IsSidechain bool `json:"isSidechain"`
	// Summary is the text of a "summary" line.
	Summary string `json:"summary"`
}

// ParseLine decodes one JSONL line. stdout lines spell the session id
// session_id; it is folded into SessionID.
func ParseLine(b []byte) (Line, error) {
	var l struct {
		Line
		StdoutSessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return Line{}, fmt.Errorf("parse transcript line: %w", err)
	}
	if l.SessionID == "" {
		l.SessionID = l.StdoutSessionID
	}
	return l.Line, nil
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

// isConversation reports whether a line of this kind is a conversation
// message. It looks only at the line's header so that indexing and counting
// agree with ToMessage without converting every block.
func isConversation(typ string, isMeta, isSidechain bool) bool {
	return (typ == "user" || typ == "assistant") && !isMeta && !isSidechain
}

// ToMessage converts a user/assistant line (from a transcript or from the
// CLI's stdout) to the normalized rpc.Message; ok is false for lines that are
// not conversation messages (attachment, queue-operation, last-prompt,
// summary, meta and sub-agent lines…).
//
// Blocks of a type the protocol does not know (redacted_thinking,
// server-side tool blocks, …) are left out rather than turned into text:
// clients decode only the five protocol block types, and raw JSON shown as
// text would be noise. The message itself is still returned, so counts and
// paging agree with the index.
func ToMessage(sessionID string, l Line) (m rpc.Message, ok bool) {
	if !isConversation(l.Type, l.IsMeta, l.IsSidechain) || len(l.Message) == 0 {
		return rpc.Message{}, false
	}
	var am apiMessage
	if err := json.Unmarshal(l.Message, &am); err != nil {
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
		Timestamp: timestamp(l.Timestamp),
		Message: rpc.MessageBody{
			Role:    role,
			Content: blocks(am.Content),
			Model:   am.Model,
			Usage:   am.Usage,
		},
	}, true
}

// timestamp returns ts when it is RFC 3339, else the current time.
func timestamp(ts string) string {
	if _, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return ts
	}
	return now().UTC().Format(time.RFC3339Nano)
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
	var in []apiBlock
	if json.Unmarshal(raw, &in) != nil {
		return out
	}
	for _, b := range in {
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
	}
	return out
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
