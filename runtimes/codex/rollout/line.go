package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// Line is one rollout line: {timestamp, type, payload}.
type Line struct {
	Timestamp string  `json:"timestamp"`
	Type      string  `json:"type"`
	Payload   Payload `json:"payload"`
}

// Payload is the subset of the payloads of the line kinds cdevd reads.
type Payload struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// session_meta
	Cwd string `json:"cwd"`
	// event_msg/item_completed
	Item *Item `json:"item"`
	// response_item: reasoning
	Summary []textPart `json:"summary"`
	// response_item: function_call, custom_tool_call and their outputs
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
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

// ParseLine decodes one rollout line. A field of an unexpected type is left
// zero rather than failing the line: only malformed JSON is an error.
func ParseLine(b []byte) (Line, error) {
	var l Line
	if err := json.Unmarshal(b, &l); err != nil && !isTypeError(err) {
		return Line{}, fmt.Errorf("parse rollout line: %w", err)
	}
	return l, nil
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// kind names a line by its type and its payload's type, e.g.
// "response_item/function_call".
func (l Line) kind() string {
	k := l.Type + "/" + l.Payload.Type
	if l.Type == "event_msg" && l.Payload.Type == "item_completed" && l.Payload.Item != nil {
		k += "/" + l.Payload.Item.Type
	}
	return k
}

// messageKinds are the line kinds that are messages, and the role of each.
//
// Commands and file changes come from their thread items
// (CommandExecution, FileChange), which hold the call and its outcome
// together, under the call id, exactly as app-server's live item/completed
// does; the response_item function_call / custom_tool_call lines and their
// outputs are the model's side of the same calls and are not messages (nor
// are calls without a thread item, such as write_stdin or update_plan,
// which are plumbing).
var messageKinds = map[string]rpc.MessageType{
	"event_msg/item_completed/UserMessage":      rpc.MessageUser,
	"event_msg/item_completed/AgentMessage":     rpc.MessageAssistant,
	"event_msg/item_completed/CommandExecution": rpc.MessageAssistant,
	"event_msg/item_completed/FileChange":       rpc.MessageAssistant,
	"response_item/reasoning":                   rpc.MessageAssistant,
}

// isMessage reports whether ToMessage accepts l; it looks only at the
// line's kind, so that counting and paging never depend on contents.
func isMessage(l Line) bool {
	_, ok := messageKinds[l.kind()]
	return ok
}

// timeFormat is RFC 3339 with milliseconds, as Codex writes timestamps.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// ToMessage converts one rollout line, found at byte offset off of thread
// threadID's rollout, to the normalized rpc.Message; ok is false for lines
// that are not messages. The message id is the one the line carries (the
// item id, the model API's output item id); a line without one gets an id
// made from off, stable as long as the file is only appended to.
func ToMessage(threadID string, off int64, l Line) (m rpc.Message, ok bool) {
	typ, ok := messageKinds[l.kind()]
	if !ok {
		return rpc.Message{}, false
	}
	p := l.Payload
	id := p.ID
	content := []rpc.ContentBlock{}
	switch l.Type + "/" + p.Type {
	case "event_msg/item_completed":
		id = p.Item.ID
		switch p.Item.Type {
		case "CommandExecution", "FileChange":
			it := ToolItem{ID: id, Status: p.Item.Status, Output: p.Item.AggregatedOutput, ExitCode: p.Item.ExitCode}
			if p.Item.Type == "CommandExecution" {
				it.Argv = p.Item.Command
				if it.Argv == nil {
					it.Argv = []string{}
				}
			} else {
				it.Changes = p.Item.Changes
			}
			return ToolMessage(threadID, timestamp(l.Timestamp), it), true
		}
		for _, c := range p.Item.Content {
			if (c.Type == "text" || c.Type == "Text") && c.Text != "" {
				content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: c.Text})
			}
		}
	case "response_item/reasoning":
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
