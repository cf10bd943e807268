package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

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
// and ToMessage both ask it (S is how each holds the strings). Commands
// and file changes are their thread items (see the package doc): the
// response_item function_call / custom_tool_call lines and their outputs
// are the model's side of the same calls, and calls without an item
// (write_stdin, update_plan) are plumbing.
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
	p, id := l.Payload, l.Payload.ID
	if l.Type == "event_msg" {
		id = p.Item.ID
	}
	if id == "" { // a tool item's too: a message always has an id
		id = "line-" + strconv.FormatInt(off, 10)
	}
	content := []rpc.ContentBlock{}
	if it := p.Item; l.Type == "event_msg" {
		if it.Type == "CommandExecution" || it.Type == "FileChange" {
			ti := ToolItem{ID: id, Changes: it.Changes, Status: it.Status, Output: it.AggregatedOutput, ExitCode: it.ExitCode}
			if it.Type == "CommandExecution" {
				ti.Argv, ti.Changes = append([]string{}, it.Command...), nil // Argv set: a command
			}
			return ToolMessage(threadID, history.Timestamp(l.Timestamp, now), ti), true
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
	return NewMessage(threadID, id, typ, history.Timestamp(l.Timestamp, now), content), true
}

// now is the clock for lines without a valid timestamp.
var now = time.Now

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
