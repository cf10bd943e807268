package chats

import (
	"cmp"
	"encoding/json"
	"strings"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// contextPrefix starts the synthetic user message Gemini writes first in
// every session (environment and instructions, not typed by the user).
const contextPrefix = "<session_context>"

// record is the part of a message record the conversion reads.
type record struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"` // user: parts; gemini: a string or parts
	Thoughts  []thought       `json:"thoughts"`
	ToolCalls []toolCall      `json:"toolCalls"`
	Tokens    *tokens         `json:"tokens"`
	Model     string          `json:"model"`
}

type thought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

type tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Cached int64 `json:"cached"`
}

type toolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result []part          `json:"result"`
	Status string          `json:"status"`
}

type part struct {
	Text             *string           `json:"text"`
	Thought          bool              `json:"thought"` // in a resumed answer's parts
	FunctionResponse *functionResponse `json:"functionResponse"`
}

type functionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// decode reads a record; fields of unexpected types are left zero.
func decode(raw []byte) record {
	if r, ok := quickRecord(raw); ok {
		return r
	}
	var r record
	// A field of an unexpected type is left zero and the rest decoded; the
	// record was parsed before, so its JSON is valid.
	_ = json.Unmarshal(raw, &r)
	return r
}

// userParts returns a user record's parts; content written as a plain
// string is one text part.
func (r record) userParts() []part {
	if len(r.Content) > 0 && r.Content[0] == '"' {
		if s, ok := str(r.Content); ok {
			if s == "" {
				return nil
			}
			return []part{{Text: &s}}
		}
	}
	if parts, ok := quickParts(r.Content); ok {
		return parts
	}
	var parts []part
	if json.Unmarshal(r.Content, &parts) == nil {
		return parts
	}
	var s string
	if json.Unmarshal(r.Content, &s) == nil && s != "" {
		return []part{{Text: &s}}
	}
	return nil
}

// geminiText returns a gemini record's answer. Gemini writes it as a
// string, but as a list of parts when it rewrites a resumed conversation
// (the $set of messages that `gemini --resume` writes).
func (r record) geminiText() string {
	if len(r.Content) > 0 && r.Content[0] == '"' {
		s, _ := str(r.Content)
		return s
	}
	parts, ok := quickParts(r.Content)
	if !ok {
		_ = json.Unmarshal(r.Content, &parts)
	}
	return partsText(parts)
}

// partsText is the answer's text in parts (thoughts apart).
func partsText(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil && !p.Thought {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

// info is what the store keeps about a record to list and count without
// converting it.
type info struct {
	prompt    string   // first text a user typed; "" for others
	visible   bool     // a message unless all it holds is covered elsewhere
	responses []string // function-response ids of a user record
	calls     []string // tool-call ids of a gemini record
}

func infoOf(r record) info {
	switch r.Type {
	case "user":
		return userInfo(r.userParts())
	case "gemini":
		var in info
		for _, c := range r.ToolCalls {
			in.calls = append(in.calls, c.ID)
		}
		in.visible = r.geminiText() != "" || len(r.Thoughts) > 0 || len(r.ToolCalls) > 0
		return in
	}
	return info{}
}

// userInfo is the info of a user record whose content is parts: taken in
// as a replay takes in the parts it reads (partsInfo.add).
func userInfo(parts []part) info {
	var pi partsInfo
	for _, p := range parts {
		q := partInfo{thought: p.Thought}
		if p.Text != nil {
			q.text = []byte(*p.Text)
		}
		if p.FunctionResponse != nil {
			q.response, q.responseID = true, []byte(p.FunctionResponse.ID)
		}
		pi.add(&q, true)
	}
	return pi.userInfo()
}

// isMessage reports whether a record with in is a message, given the tool
// calls recorded in the session (whose results a gemini record holds).
func (in info) isMessage(called func(id string) bool) bool {
	if in.visible {
		return true
	}
	for _, id := range in.responses {
		if !called(id) {
			return true
		}
	}
	return false
}

// ToMessage converts a message record of session sessionID to the
// normalized rpc.Message. called reports whether a tool call id is in a
// gemini record of the session: a user record's function response to such
// a call is left out (the call's record holds its result), others become
// tool_result blocks (a rejected call is only there). fallbackTS stands in
// for a missing or invalid timestamp. ok is false for records that are
// not messages: the session context, empty answers, other types.
func ToMessage(sessionID string, raw []byte, called func(id string) bool, fallbackTS string) (rpc.Message, bool) {
	r := decode(raw)
	content := []rpc.ContentBlock{}
	var typ rpc.MessageType
	switch r.Type {
	case "user":
		typ = rpc.MessageUser
		for _, p := range r.userParts() {
			switch {
			case p.Text != nil && strings.HasPrefix(*p.Text, contextPrefix):
				return rpc.Message{}, false
			case p.Text != nil && *p.Text != "":
				content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: *p.Text})
			case p.FunctionResponse != nil && !called(p.FunctionResponse.ID):
				out, isErr := responseText(p.FunctionResponse.Response)
				content = append(content, rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: p.FunctionResponse.ID, Content: jsonString(out), IsError: isErr})
			}
		}
	case "gemini":
		typ = rpc.MessageAssistant
		for _, t := range r.Thoughts {
			// As the live agent_thought_chunk once its **subject** line is
			// stripped: the description, or the subject when that is all.
			if s := cmp.Or(t.Description, t.Subject); s != "" {
				content = append(content, rpc.ContentBlock{Type: rpc.BlockThinking, Thinking: s})
			}
		}
		if s := r.geminiText(); s != "" {
			content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: s})
		}
		for _, c := range r.ToolCalls {
			input := json.RawMessage(c.Args)
			if len(input) == 0 || input[0] != '{' {
				input = json.RawMessage("{}")
			}
			content = append(content, rpc.ContentBlock{Type: rpc.BlockToolUse, ID: c.ID, Name: c.Name, Input: input})
			if len(c.Result) > 0 || c.Status != "" {
				out, isErr := "", c.Status != "" && c.Status != "success"
				for _, p := range c.Result {
					if p.FunctionResponse != nil {
						o, e := responseText(p.FunctionResponse.Response)
						out, isErr = out+o, isErr || e
					}
				}
				content = append(content, rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: c.ID, Content: jsonString(out), IsError: isErr})
			}
		}
	default:
		return rpc.Message{}, false
	}
	if len(content) == 0 {
		return rpc.Message{}, false
	}
	ts := r.Timestamp
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
		ts = fallbackTS
	}
	body := rpc.MessageBody{Role: string(typ), Content: content}
	if typ == rpc.MessageAssistant {
		body.ID, body.Model = r.ID, r.Model
		if r.Tokens != nil {
			body.Usage = &rpc.Usage{InputTokens: r.Tokens.Input, OutputTokens: r.Tokens.Output, CacheReadInputTokens: r.Tokens.Cached}
		}
	}
	return rpc.Message{ID: r.ID, SessionID: sessionID, Type: typ, UUID: r.ID, Timestamp: ts, Message: body}, true
}

// responseText is a function response's text and whether it reports an
// error: Gemini's tools answer {"output": …} or {"error": …}; anything
// else is passed on as its JSON text.
func responseText(resp json.RawMessage) (string, bool) {
	r, ok := quickResponse(resp)
	if ok || json.Unmarshal(resp, &r) == nil {
		switch {
		case r.Error != nil:
			return *r.Error, true
		case r.Output != nil:
			return *r.Output, false
		}
	}
	if len(resp) == 0 {
		return "", false
	}
	return string(resp), false
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
