package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// Line is one rollout line: {timestamp, type, payload}.
type Line struct {
	Timestamp string  `json:"timestamp"`
	Type      string  `json:"type"`
	Payload   Payload `json:"payload"`
}

// Payload is what cdevd reads of the payloads of the line kinds it reads.
type Payload struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// session_meta
	Cwd string `json:"cwd"`
	// event_msg/item_completed
	Item *Item `json:"item"`
	// response_item: reasoning
	Summary []textPart `json:"summary"`
}

// textPart is a part of a reasoning summary or of an item's content.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Item is the thread item an event_msg/item_completed line carries.
type Item struct {
	Type    string     `json:"type"`
	ID      string     `json:"id"`
	Content []textPart `json:"content"`
	// CommandExecution
	Command          []string `json:"command"`
	Status           string   `json:"status"`
	AggregatedOutput string   `json:"aggregated_output"`
	ExitCode         *int     `json:"exit_code"`
	// FileChange
	Changes []ChangeEntry `json:"changes"`
}

// The schemas of a line, at each level (jsonl.Schema): what quickLine
// reads of it, as encoding/json decodes it into Line.
var (
	lineSchema = jsonl.NewSchema(
		jsonl.StringKey("timestamp", func(l *Line) *string { return &l.Timestamp }),
		jsonl.StringKey("type", func(l *Line) *string { return &l.Type }),
		jsonl.StructKey("payload", func(l *Line) *Payload { return &l.Payload }, payloadSchema),
	)
	payloadSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(p *Payload) *string { return &p.Type }),
		jsonl.StringKey("id", func(p *Payload) *string { return &p.ID }),
		jsonl.StringKey("cwd", func(p *Payload) *string { return &p.Cwd }),
		jsonl.PtrKey("item", func(p *Payload) **Item { return &p.Item }, itemSchema),
		jsonl.SliceKey("summary", func(p *Payload) *[]textPart { return &p.Summary }, textSchema),
	)
	textSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(t *textPart) *string { return &t.Type }),
		jsonl.StringKey("text", func(t *textPart) *string { return &t.Text }),
	)
	itemSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(it *Item) *string { return &it.Type }),
		jsonl.StringKey("id", func(it *Item) *string { return &it.ID }),
		jsonl.SliceKey("content", func(it *Item) *[]textPart { return &it.Content }, textSchema),
		jsonl.StringsKey("command", func(it *Item) *[]string { return &it.Command }),
		jsonl.StringKey("status", func(it *Item) *string { return &it.Status }),
		jsonl.StringKey("aggregated_output", func(it *Item) *string { return &it.AggregatedOutput }),
		jsonl.FuncKey("exit_code", func(b []byte, at int, it *Item) int {
			var n int64
			e := jsonl.Int(b, at, &n)
			if e < 0 || int64(int(n)) != n { // encoding/json refuses what overflows an int
				return -1
			}
			it.ExitCode = new(int)
			*it.ExitCode = int(n)
			return e
		}),
		jsonl.SliceKey("changes", func(it *Item) *[]ChangeEntry { return &it.Changes }, changeSchema),
	)
	changeSchema = jsonl.NewSchema(
		jsonl.StringKey("path", func(c *ChangeEntry) *string { return &c.Path }),
		jsonl.StructKey("kind", func(c *ChangeEntry) *ChangeKind { return &c.Kind }, kindSchema),
		jsonl.StringKey("diff", func(c *ChangeEntry) *string { return &c.Diff }),
	)
	kindSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(k *ChangeKind) *string { return &k.Type }),
		jsonl.StringKey("move_path", func(k *ChangeKind) *string { return &k.MovePath }),
	)
)

// quickLine decodes a rollout line as encoding/json decodes it into Line,
// in one pass and without reflection (lineSchema): the decoder, which
// validated each line before decoding it, was two thirds of a page of an
// indexed rollout in the daemon. It takes the shapes Codex writes; anything
// else (ok false) goes to encoding/json. It does not validate what it
// skips, so a line whose unread members are not valid JSON is read where
// encoding/json would have refused it.
func quickLine(b []byte) (Line, bool) {
	var l Line
	ok := lineSchema.Read(b, &l)
	return l, ok
}

// pageLine is ParseLine by way of quickLine when it takes b.
func pageLine(b []byte) (Line, error) {
	if l, ok := quickLine(b); ok {
		return l, nil
	}
	return ParseLine(b)
}

// ParseLine decodes one rollout line. A field of an unexpected type is left
// zero rather than failing the line: only malformed JSON is an error.
func ParseLine(b []byte) (Line, error) {
	var l Line
	var te *json.UnmarshalTypeError
	if err := json.Unmarshal(b, &l); err != nil && !errors.As(err, &te) {
		return Line{}, fmt.Errorf("parse rollout line: %w", err)
	}
	return l, nil
}

// kind names a line by its type and its payload's type, e.g.
// "response_item/function_call", and its item's for an item_completed.
func (l Line) kind() string {
	k := l.Type + "/" + l.Payload.Type
	if l.Type == "event_msg" && l.Payload.Type == "item_completed" && l.Payload.Item != nil {
		k += "/" + l.Payload.Item.Type
	}
	return k
}

// messageType is the role of the message a line is, from its type, its
// payload's type and its item's (hasItem: an item that is not null); ok
// is false for a line that is not a message. It looks only at the line's
// kind, so that counting and paging never depend on contents; classify
// and ToMessage both ask it (S is how each holds the strings).
//
// Commands and file changes come from their thread items
// (CommandExecution, FileChange), which hold the call and its outcome
// together, under the call id, exactly as app-server's live item/completed
// does; the response_item function_call / custom_tool_call lines and their
// outputs are the model's side of the same calls and are not messages (nor
// are calls without a thread item, such as write_stdin or update_plan,
// which are plumbing).
func messageType[S ~string | ~[]byte](typ, ptyp, ityp S, hasItem bool) (rpc.MessageType, bool) {
	switch {
	case string(typ) == "response_item" && string(ptyp) == "reasoning":
		return rpc.MessageAssistant, true
	case string(typ) != "event_msg" || string(ptyp) != "item_completed" || !hasItem:
		return "", false
	}
	switch string(ityp) {
	case "UserMessage":
		return rpc.MessageUser, true
	case "AgentMessage", "CommandExecution", "FileChange":
		return rpc.MessageAssistant, true
	}
	return "", false
}

// isMessage reports whether ToMessage accepts l.
func isMessage(l Line) bool {
	_, ok := l.messageType()
	return ok
}

func (l Line) messageType() (rpc.MessageType, bool) {
	var ityp string
	if it := l.Payload.Item; it != nil {
		ityp = it.Type
	}
	return messageType(l.Type, l.Payload.Type, ityp, l.Payload.Item != nil)
}

// timeFormat is RFC 3339 with milliseconds, as Codex writes timestamps.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// ToMessage converts one rollout line, found at byte offset off of thread
// threadID's rollout, to the normalized rpc.Message; ok is false for lines
// that are not messages. The message id is the one the line carries (the
// item id, the model API's output item id); a line without one gets an id
// made from off, stable as long as the file is only appended to.
func ToMessage(threadID string, off int64, l Line) (m rpc.Message, ok bool) {
	typ, ok := l.messageType()
	if !ok {
		return rpc.Message{}, false
	}
	p := l.Payload
	id := p.ID
	content := []rpc.ContentBlock{}
	if it := p.Item; l.Type == "event_msg" {
		id = it.ID
		if it.Type == "CommandExecution" || it.Type == "FileChange" {
			ti := ToolItem{ID: id, Changes: it.Changes, Status: it.Status, Output: it.AggregatedOutput, ExitCode: it.ExitCode}
			if it.Type == "CommandExecution" {
				ti.Argv, ti.Changes = append([]string{}, it.Command...), nil // Argv set: a command
			}
			return ToolMessage(threadID, timestamp(l.Timestamp), ti), true
		}
		for _, c := range it.Content {
			if (c.Type == "text" || c.Type == "Text") && c.Text != "" {
				content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: c.Text})
			}
		}
	} else {
		for _, s := range p.Summary {
			if s.Text != "" {
				content = append(content, rpc.ContentBlock{Type: rpc.BlockThinking, Thinking: s.Text})
			}
		}
	}
	if id == "" {
		id = "line-" + strconv.FormatInt(off, 10)
	}
	return NewMessage(threadID, id, typ, timestamp(l.Timestamp), content), true
}

// now is the clock for lines without a valid timestamp.
var now = time.Now

func timestamp(ts string) string {
	if _, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return ts
	}
	return now().UTC().Format(timeFormat)
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// prompt returns the text the user typed in l, or "".
func prompt(l Line) string {
	if l.kind() != "event_msg/item_completed/UserMessage" {
		return ""
	}
	for _, c := range l.Payload.Item.Content {
		if c.Type == "text" && c.Text != "" {
			return c.Text
		}
	}
	return ""
}
