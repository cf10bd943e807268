package rollout

import (
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/internal/jsonstr"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Line is one rollout line: {timestamp, type, payload}.
type Line struct {
	Timestamp string  `json:"timestamp"`
	Type      string  `json:"type"`
	Payload   Payload `json:"payload"`
}

// Payload is what cdevd reads of a line's payload. A message's body (a
// reasoning's summary, an item's content, command, output or changes) is
// kept as written, borrowed from the line, and decoded by ToMessage only:
// a scan counts messages by their kind, and one that decoded every body took
// twice the CPU (BenchmarkAddGenerated).
type Payload struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Cwd     string          `json:"cwd"`     // session_meta
	Item    *Item           `json:"item"`    // event_msg/item_completed
	Summary json.RawMessage `json:"summary"` // response_item/reasoning: []textPart
	Info    *tokenInfo      `json:"info"`    // event_msg/token_count
}

// Item is the thread item an event_msg/item_completed line carries.
type Item struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Status           string          `json:"status"`
	ExitCode         *int            `json:"exit_code"`
	Content          json.RawMessage `json:"content"`           // []textPart
	Command          json.RawMessage `json:"command"`           // []string
	AggregatedOutput json.RawMessage `json:"aggregated_output"` // string
	Changes          json.RawMessage `json:"changes"`           // []ChangeEntry
}

// textPart is a part of a reasoning summary or of an item's content.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

var (
	lineSchema = jsonl.NewSchema(
		jsonl.StringKey("timestamp", func(l *Line) *string { return &l.Timestamp }),
		jsonl.Key("type", func(l *Line) *string { return &l.Type }, readName),
		jsonl.StructKey("payload", func(l *Line) *Payload { return &l.Payload }, payloadSchema),
	)
	payloadSchema = jsonl.NewSchema(
		jsonl.Key("type", func(p *Payload) *string { return &p.Type }, readName),
		jsonl.StringKey("id", func(p *Payload) *string { return &p.ID }),
		jsonl.StringKey("cwd", func(p *Payload) *string { return &p.Cwd }),
		jsonl.PtrKey("item", func(p *Payload) **Item { return &p.Item }, itemSchema),
		jsonl.BorrowedKey("summary", func(p *Payload) *json.RawMessage { return &p.Summary }),
		jsonl.PtrKey("info", func(p *Payload) **tokenInfo { return &p.Info }, infoSchema),
	)
	itemSchema = jsonl.NewSchema(
		jsonl.Key("type", func(it *Item) *string { return &it.Type }, readName),
		jsonl.StringKey("id", func(it *Item) *string { return &it.ID }),
		jsonl.Key("status", func(it *Item) *string { return &it.Status }, readName),
		jsonl.FuncKey("exit_code", func(b []byte, at int, it *Item) int {
			var n int64
			e := jsonl.Int(b, at, &n)
			if e < 0 || int64(int(n)) != n { // encoding/json refuses what overflows an int
				return -1
			}
			it.ExitCode = new(int(n))
			return e
		}),
		jsonl.BorrowedKey("content", func(it *Item) *json.RawMessage { return &it.Content }),
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

// names are the kinds of line, payload and item Codex writes (and an
// item's status): readName reads them without a string of their own, which
// took a third of a scan's allocations (BenchmarkFirstPageGenerated).
var names = func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields("session_meta turn_context event_msg response_item token_usage_record " +
		"world_state item_completed token_count task_started task_complete thread_settings_applied message " +
		"reasoning function_call function_call_output custom_tool_call custom_tool_call_output UserMessage " +
		"AgentMessage Reasoning CommandExecution FileChange completed failed declined") {
		m[n] = n
	}
	return m
}()

// readName is jsonl.String, without a new string for one of names.
func readName(b []byte, at int, dst *string) int {
	var raw []byte
	e := jsonl.Bytes(b, at, &raw)
	if n, ok := names[string(raw)]; ok {
		*dst = n
	} else if e >= 0 {
		*dst = string(raw)
	}
	return e
}

// readLine reads line b into *l by its schemas, else by encoding/json
// (exact false if it left a value of another type zero). What the schemas
// skip is not validated: a line whose unread members are not JSON is read.
func readLine(sh *jsonl.Shape, b []byte, l *Line) (exact bool, err error) {
	if lineSchema.ReadShaped(sh, b, l) {
		return true, nil
	}
	return decode(b, l)
}

// decode is json.Unmarshal but for its type errors (exact false).
func decode(b []byte, v any) (exact bool, err error) {
	err = json.Unmarshal(b, v)
	if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
		return false, nil
	}
	return err == nil, err
}

// body decodes raw, a body member as written, into *dst by read, else by
// decode; false if raw is not JSON (a message line damaged inside, which
// its index counts and a page leaves out).
func body[V any](raw json.RawMessage, read func(b []byte, at int, dst *V) int, dst *V) bool {
	if len(raw) == 0 || jsonl.Whole(raw, read(raw, 0, dst)) {
		return true
	}
	*dst = *new(V)
	_, err := decode(raw, dst)
	return err == nil
}

// sliceOf reads an array whose elements read reads ([]: an empty slice).
func sliceOf[E any](read func(b []byte, at int, dst *E) int) func(b []byte, at int, dst *[]E) int {
	return func(b []byte, at int, dst *[]E) int {
		return jsonl.Array(b, at, func() { *dst = []E{} }, func(at int) int {
			*dst = append(*dst, *new(E))
			return read(b, at, &(*dst)[len(*dst)-1])
		})
	}
}

// texts decodes raw, an item's content or a reasoning's summary.
func texts(raw json.RawMessage) (parts []textPart, ok bool) {
	ok = body(raw, sliceOf(textSchema.ReadAt), &parts)
	return parts, ok
}

// item is l's item, or a zero one.
func (l *Line) item() *Item {
	if l.Payload.Item == nil {
		return &Item{}
	}
	return l.Payload.Item
}

// messageType is the role of the message l is (ok false: none), from its
// kind only, so that counting never depends on contents. Commands and file
// changes are their thread items: the response_item calls and outputs are
// the model's side of them, and calls without an item are plumbing.
func (l *Line) messageType() (typ rpc.MessageType, ok bool) {
	ityp := l.item().Type
	switch {
	case l.Type == "response_item" && l.Payload.Type == "reasoning":
		return rpc.MessageAssistant, true
	case l.Type != "event_msg" || l.Payload.Type != "item_completed":
	case ityp == "UserMessage":
		return rpc.MessageUser, true
	case ityp == "AgentMessage" || ityp == "CommandExecution" || ityp == "FileChange":
		return rpc.MessageAssistant, true
	}
	return "", false
}

func isMessage(l Line) bool {
	_, ok := l.messageType()
	return ok
}

// ToMessage converts one rollout line, at byte offset off of thread
// threadID's rollout, to the normalized rpc.Message; ok is false for a line
// that is not a message, or whose body is not JSON. A line without an id
// gets one made from off, stable while the file is only appended to.
func ToMessage(threadID string, off int64, l Line) (m rpc.Message, ok bool) {
	typ, ok := l.messageType()
	if !ok {
		return rpc.Message{}, false
	}
	it, id := l.item(), l.Payload.ID
	if l.Type == "event_msg" {
		id = it.ID
	}
	if id == "" {
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
	raw := l.Payload.Summary
	if l.Type == "event_msg" {
		raw = it.Content
	}
	parts, ok := texts(raw)
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

// prompt returns the text the user typed in l, or "".
func prompt(l Line) string {
	if typ, _ := l.messageType(); typ != rpc.MessageUser {
		return ""
	}
	parts, _ := texts(l.item().Content)
	for _, c := range parts {
		if c.Type == "text" && c.Text != "" {
			return c.Text
		}
	}
	return ""
}

// TimeFormat is RFC 3339 with milliseconds, as Codex writes timestamps.
const TimeFormat = history.TimeFormat

// Tool names of the tool_use blocks of command executions and file changes:
// Codex's items do not name the model's tool, so these name what was done
// ("Bash" is what clients already render as a command).
const (
	CommandTool = "Bash"
	PatchTool   = "apply_patch"
)

// NewMessage is the normalized message with id: the one constructor of live
// and stored messages, so that both have the same shape.
func NewMessage(threadID, id string, typ rpc.MessageType, ts string, content []rpc.ContentBlock) rpc.Message {
	body := rpc.MessageBody{Role: string(typ), Content: content}
	if typ == rpc.MessageAssistant {
		body.ID = id
	}
	return rpc.Message{ID: id, SessionID: threadID, Type: typ, UUID: id, Timestamp: ts, Message: body}
}

// ChangeEntry is one file of a file change, live or in a rollout.
type ChangeEntry struct {
	Path string     `json:"path"`
	Kind ChangeKind `json:"kind"`
	Diff string     `json:"diff"`
}

// ChangeKind is what a file change does to its file.
type ChangeKind struct {
	Type     string `json:"type"` // add, delete, update
	MovePath string `json:"move_path,omitempty"`
}

// ToolItem is a completed command execution (Argv set) or file change, from
// app-server's item/completed or the rollout's event_msg/item_completed.
type ToolItem struct {
	ID       string
	Argv     []string
	Changes  []ChangeEntry
	Status   string // completed, failed, declined
	Output   string
	ExitCode *int
}

// ToolMessage is the assistant message of a completed tool item: a
// tool_use block and its tool_result under the item's id (the model's call
// id), as Codex keeps both halves in one item.
func ToolMessage(threadID, ts string, it ToolItem) rpc.Message {
	failed := it.Status != "completed" || (it.ExitCode != nil && *it.ExitCode != 0)
	var use, result rpc.ContentBlock
	if it.Argv != nil {
		input, _ := json.Marshal(map[string]string{"command": CommandText(it.Argv)})
		use = rpc.ContentBlock{Type: rpc.BlockToolUse, ID: it.ID, Name: CommandTool, Input: input}
		out := it.Output
		if out == "" && it.Status == "declined" {
			out = "declined by the user"
		}
		// No exit code for a command that never ran (declined) or that Codex stopped.
		result = rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: it.ID, Content: jsonstr.Append(nil, out),
			IsError: failed, ExitCode: it.ExitCode}
	} else {
		changes := it.Changes
		if changes == nil {
			changes = []ChangeEntry{}
		}
		input, _ := json.Marshal(map[string]any{"changes": changes})
		use = rpc.ContentBlock{Type: rpc.BlockToolUse, ID: it.ID, Name: PatchTool, Input: input}
		result = rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: it.ID, Content: jsonstr.Append(nil, it.Status), IsError: failed}
	}
	return NewMessage(threadID, it.ID, rpc.MessageAssistant, ts, []rpc.ContentBlock{use, result})
}

// CommandText is what a person would type for argv: the script of a
// `bash -lc SCRIPT` (how Codex runs every command), else the words joined.
func CommandText(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		switch path.Base(argv[0]) {
		case "bash", "sh", "zsh", "dash":
			return argv[2]
		}
	}
	return strings.Join(argv, " ")
}
