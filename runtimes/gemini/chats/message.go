package chats

import (
	"bytes"
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

// part is one part of a content list, read by a replay and a page alike.
type part struct {
	Text             text             `json:"text"`
	Thought          bool             `json:"thought"` // in a resumed answer's parts
	FunctionResponse functionResponse `json:"functionResponse"`
}

// functionResponse is a part's, when given: not a pointer, as encoding/json
// would make, since one allocated for each was a quarter of what a cold
// first page allocated.
type functionResponse struct {
	ID       text            `json:"id"`
	Name     text            `json:"name"`
	Response json.RawMessage `json:"response"`
	given    bool
}

func readFunctionResponse(b []byte, at int, r *functionResponse) int {
	r.given = true
	return functionResponseSchema.ReadAt(b, at, r)
}

// UnmarshalJSON is encoding/json's reading of a function response, as
// into a pointer: null is none.
func (r *functionResponse) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	type plain functionResponse // without this method
	r.given = true
	return json.Unmarshal(b, (*plain)(r))
}

// decode reads a record; fields of unexpected types are left zero.
func decode(raw []byte) record {
	var r record
	if !recordSchema.Read(raw, &r) {
		_ = json.Unmarshal(raw, &r) // the record was parsed before: its JSON is valid
	}
	return r
}

// userParts returns a user record's parts (contentParts), none when they
// are not all of the types expected.
func (r record) userParts() []part {
	parts, err := contentParts(r.Content, nil)
	if err != nil {
		return nil
	}
	return parts
}

// contentParts reads content c into parts (emptied): a list of parts, or a
// string as one text part (none when empty).
func contentParts(c json.RawMessage, parts []part) ([]part, error) {
	if len(c) == 0 {
		return nil, nil
	}
	if c[0] != '"' {
		return readParts(c, parts)
	}
	var t text
	if readText(c, 0, &t) != len(c) {
		if err := json.Unmarshal(c, &t); err != nil {
			return nil, err
		}
	}
	if len(t) == 0 {
		return nil, nil
	}
	return append(parts, part{Text: t}), nil
}

// geminiText returns a gemini record's answer. Gemini writes it as a
// string, but as a list of parts when it rewrites a resumed conversation
// (the $set of messages that `gemini --resume` writes).
func (r record) geminiText() string {
	parts, _ := contentParts(r.Content, nil) // what it reads of a list with a part amiss too
	return partsText(parts)
}

// partsText is the answer's text in parts (thoughts apart).
func partsText(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if !p.Thought {
			b.Write(p.Text)
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
			case bytes.HasPrefix(p.Text, []byte(contextPrefix)):
				return rpc.Message{}, false
			case len(p.Text) > 0:
				content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: string(p.Text)})
			case p.FunctionResponse.given && !called(string(p.FunctionResponse.ID)):
				out, isErr := responseText(p.FunctionResponse.Response)
				content = append(content, rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: string(p.FunctionResponse.ID), Content: jsonString(out), IsError: isErr})
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
					if p.FunctionResponse.given {
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

// response is what responseText reads of a function response.
type response struct {
	Output *string `json:"output"`
	Error  *string `json:"error"`
}

// responseText is a function response's text and whether it reports an
// error: Gemini's tools answer {"output": …} or {"error": …}; anything
// else is passed on as its JSON text.
func responseText(resp json.RawMessage) (string, bool) {
	var r response
	if responseSchema.Read(resp, &r) || json.Unmarshal(resp, &r) == nil {
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
