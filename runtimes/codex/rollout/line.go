package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Line is one rollout line: {timestamp, type, payload}.
type Line struct {
	Timestamp string  `json:"timestamp"`
	Type      string  `json:"type"`
	Payload   Payload `json:"payload"`
}

// Payload is what cdevd reads of the payloads of the line kinds it reads.
// A message's body (a reasoning's summary, an item's content, command,
// output and changes) is kept as written, borrowed from the line, and
// decoded by ToMessage alone: an index counts messages by their kind, never
// by their contents, and a scan that decoded every body took twice the CPU
// (BenchmarkAddGenerated).
type Payload struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Cwd     string          `json:"cwd"`     // session_meta
	Item    *Item           `json:"item"`    // event_msg/item_completed
	Summary json.RawMessage `json:"summary"` // response_item/reasoning: []textPart
	Info    *tokenInfo      `json:"info"`    // event_msg/token_count: null before the first call
}

// textPart is a part of a reasoning summary or of an item's content.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Item is the thread item an event_msg/item_completed line carries.
type Item struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Content  json.RawMessage `json:"content"` // []textPart
	Status   string          `json:"status"`
	ExitCode *int            `json:"exit_code"`
	// CommandExecution: []string and string; FileChange: []ChangeEntry.
	Command          json.RawMessage `json:"command"`
	AggregatedOutput json.RawMessage `json:"aggregated_output"`
	Changes          json.RawMessage `json:"changes"`
}

// The schemas of a line at each level (jsonl.Schema): a line is read by
// them, or by encoding/json (ParseLine) where they refuse it, into Line.
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
		jsonl.BorrowedKey("summary", func(p *Payload) *json.RawMessage { return &p.Summary }),
		jsonl.PtrKey("info", func(p *Payload) **tokenInfo { return &p.Info }, infoSchema),
	)
	itemSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(it *Item) *string { return &it.Type }),
		jsonl.StringKey("id", func(it *Item) *string { return &it.ID }),
		jsonl.BorrowedKey("content", func(it *Item) *json.RawMessage { return &it.Content }),
		jsonl.StringKey("status", func(it *Item) *string { return &it.Status }),
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
		jsonl.BorrowedKey("command", func(it *Item) *json.RawMessage { return &it.Command }),
		jsonl.BorrowedKey("aggregated_output", func(it *Item) *json.RawMessage { return &it.AggregatedOutput }),
		jsonl.BorrowedKey("changes", func(it *Item) *json.RawMessage { return &it.Changes }),
	)
	textSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(t *textPart) *string { return &t.Type }),
		jsonl.StringKey("text", func(t *textPart) *string { return &t.Text }),
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

// readLine reads line b into *l by its schema, else by encoding/json as
// ParseLine does: exact is false when a value of another type was left
// zero. What the schema skips is not validated: a line whose unread
// members are not JSON can be read where encoding/json would refuse it.
func readLine(sh *jsonl.Shape, b []byte, l *Line) (exact bool, err error) {
	if lineSchema.ReadShaped(sh, b, l) {
		return true, nil
	}
	return decode(b, l)
}

// ParseLine decodes one rollout line with encoding/json. A field of an
// unexpected type is left zero rather than failing the line: only
// malformed JSON is an error.
func ParseLine(b []byte) (Line, error) {
	var l Line
	if _, err := decode(b, &l); err != nil {
		return Line{}, fmt.Errorf("parse rollout line: %w", err)
	}
	return l, nil
}

// decode is json.Unmarshal but for its type errors, which leave their
// fields zero (exact false).
func decode(b []byte, v any) (exact bool, err error) {
	err = json.Unmarshal(b, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return false, nil
	}
	return err == nil, err
}

// body decodes a message's body member raw (absent: left zero) by read,
// else as ParseLine would have; false when raw is not JSON (a line damaged
// inside, which its index counts and a page leaves out).
func body[V any](raw json.RawMessage, read func(b []byte, at int, dst *V) int, dst *V) bool {
	if len(raw) == 0 || jsonl.Whole(raw, read(raw, 0, dst)) {
		return true
	}
	*dst = *new(V)
	_, err := decode(raw, dst)
	return err == nil
}

// sliceOf reads an array whose elements read reads; [] gives an empty
// slice, as encoding/json does.
func sliceOf[E any](read func(b []byte, at int, dst *E) int) func(b []byte, at int, dst *[]E) int {
	return func(b []byte, at int, dst *[]E) int {
		return jsonl.Array(b, at, func() { *dst = []E{} }, func(at int) int {
			*dst = append(*dst, *new(E))
			return read(b, at, &(*dst)[len(*dst)-1])
		})
	}
}

// messageType is the role of the message a line is, from its type, its
// payload's type and its item's; ok is false for a line that is not a
// message. It looks only at the line's kind, so that counting and paging
// never depend on contents. Commands and file changes are their thread
// items (see the package doc): the response_item function_call /
// custom_tool_call lines and their outputs are the model's side of the
// same calls, and calls without an item (write_stdin, update_plan) are
// plumbing.
func (l *Line) messageType() (rpc.MessageType, bool) {
	switch {
	case l.Type == "response_item" && l.Payload.Type == "reasoning":
		return rpc.MessageAssistant, true
	case l.Type != "event_msg" || l.Payload.Type != "item_completed":
		return "", false
	}
	switch l.item().Type {
	case "UserMessage":
		return rpc.MessageUser, true
	case "AgentMessage", "CommandExecution", "FileChange":
		return rpc.MessageAssistant, true
	}
	return "", false
}

// item is l's item, or a zero one.
func (l *Line) item() *Item {
	if l.Payload.Item == nil {
		return &Item{}
	}
	return l.Payload.Item
}

// isMessage reports whether l is a message (ToMessage converts it).
func isMessage(l Line) bool {
	_, ok := l.messageType()
	return ok
}

// ToMessage converts one rollout line, found at byte offset off of thread
// threadID's rollout, to the normalized rpc.Message; ok is false for lines
// that are not messages, and for a message whose body is not JSON. The
// message id is the one the line carries (the item id, the model API's
// output item id); a line without one gets an id made from off, stable as
// long as the file is only appended to.
func ToMessage(threadID string, off int64, l Line) (m rpc.Message, ok bool) {
	typ, ok := l.messageType()
	if !ok {
		return rpc.Message{}, false
	}
	it, id := l.item(), l.Payload.ID
	if l.Type == "event_msg" {
		id = it.ID
	}
	if id == "" { // a tool item's too: a message always has an id
		id = "line-" + strconv.FormatInt(off, 10)
	}
	ts := history.Timestamp(l.Timestamp, now)
	if l.Type == "event_msg" && (it.Type == "CommandExecution" || it.Type == "FileChange") {
		ti := ToolItem{ID: id, Status: it.Status, ExitCode: it.ExitCode}
		if it.Type == "FileChange" {
			ok = body(it.Changes, sliceOf(changeSchema.ReadAt), &ti.Changes)
		} else {
			ok = body(it.Command, sliceOf(jsonl.String), &ti.Argv) && body(it.AggregatedOutput, jsonl.String, &ti.Output)
			ti.Argv = append([]string{}, ti.Argv...) // Argv set: a command
		}
		return ToolMessage(threadID, ts, ti), ok
	}
	var parts []textPart
	if l.Type == "event_msg" {
		ok = body(it.Content, sliceOf(textSchema.ReadAt), &parts)
	} else {
		ok = body(l.Payload.Summary, sliceOf(textSchema.ReadAt), &parts)
	}
	content := []rpc.ContentBlock{}
	for _, c := range parts {
		switch {
		case c.Text == "":
		case l.Type != "event_msg":
			content = append(content, rpc.ContentBlock{Type: rpc.BlockThinking, Thinking: c.Text})
		case c.Type == "text" || c.Type == "Text":
			content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: c.Text})
		}
	}
	return NewMessage(threadID, id, typ, ts, content), ok
}

// now is the clock for lines without a valid timestamp.
var now = time.Now

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// prompt returns the text the user typed in l, or "".
func prompt(l Line) string {
	var parts []textPart
	if l.Type != "event_msg" || l.Payload.Type != "item_completed" || l.item().Type != "UserMessage" ||
		!body(l.item().Content, sliceOf(textSchema.ReadAt), &parts) {
		return ""
	}
	for _, c := range parts {
		if c.Type == "text" && c.Text != "" {
			return c.Text
		}
	}
	return ""
}
