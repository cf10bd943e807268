package chats

import (
	"bytes"
	"encoding/json"
	"errors"
)

// taken is a record as a replay takes it in (see info): its strings are
// parts of the line read, or of its lineReader, copied by the replay into
// its index's strs.
type taken struct {
	id, typ []byte
	raw     []byte // the record's bytes, at start in its line
	start   int
	// prompt, responses (function responses' ids), calls (tool calls'
	// ids) and visible are info's.
	prompt           []byte
	responses, calls [][]byte
	visible          bool
}

// record is the Record t is, with strings of its own.
func (t *taken) record() Record {
	in := info{prompt: string(t.prompt), visible: t.visible, responses: strs(t.responses), calls: strs(t.calls)}
	return Record{ID: string(t.id), Type: string(t.typ), Raw: t.raw, Start: t.start, info: in}
}

// strs is l as strings; nil for none.
func strs(l [][]byte) []string {
	if len(l) == 0 {
		return nil
	}
	out := make([]string, len(l))
	for i, b := range l {
		out[i] = string(b)
	}
	return out
}

// take reads into lr.taken what a replay takes in of the record h, whose
// bytes raw are at start in their line; false when its content is not
// JSON.
func (lr *lineReader) take(h *recordHead, raw []byte, start int) bool {
	t := &lr.taken
	// The room kept, emptied: what it held were parts of the last line.
	clear(t.responses[:cap(t.responses)])
	clear(t.calls[:cap(t.calls)])
	*t = taken{id: h.ID, typ: h.Type, raw: raw, start: start, responses: t.responses[:0], calls: t.calls[:0]}
	c := h.Content
	switch string(h.Type) {
	case "user":
		parts, err := contentParts(c, lr.parts[:0])
		if err != nil && !isTypeError(err) {
			return false
		}
		lr.parts = parts
		if err != nil {
			parts = nil // as ToMessage reads it (userParts)
		}
		for i := range parts {
			switch p := &parts[i]; {
			case bytes.HasPrefix(p.Text, []byte(contextPrefix)):
				t.prompt, t.responses = nil, t.responses[:0] // the synthetic context: not a message
				return true
			case len(p.Text) > 0:
				if len(t.prompt) == 0 {
					t.prompt = p.Text
				}
			case p.FunctionResponse.given:
				t.responses = append(t.responses, p.FunctionResponse.ID)
			}
		}
		t.visible = len(t.prompt) > 0
	case "gemini":
		for i := range h.ToolCalls {
			t.calls = append(t.calls, h.ToolCalls[i].ID)
		}
		said := len(c) > 2 && c[0] == '"' // any escape decodes to something
		if len(c) > 0 && c[0] == '[' {
			parts, err := readParts(c, lr.parts[:0])
			if err != nil && !isTypeError(err) {
				return false
			}
			lr.parts, said = parts, false
			for i := range parts {
				said = said || (len(parts[i].Text) > 0 && !parts[i].Thought)
			}
		}
		t.visible = said || len(h.Thoughts) > 0 || len(h.ToolCalls) > 0
	}
	return true
}

func isTypeError(err error) bool { return errors.As(err, new(*json.UnmarshalTypeError)) }
