package chats

import (
	"encoding/json"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// The quick decoders read a record for its page as encoding/json reads it
// into record, in one pass and without reflection (jsonl.Known and its
// readers): encoding/json was two thirds of a page of an indexed chat file,
// a third of it validating each line before decoding it. Anything they do
// not take goes to encoding/json. Like fastLine they do not validate what
// they skip, so a record whose unread members are not valid JSON is shown
// (the index counted it) where encoding/json would have dropped it; what a
// page passes on raw (a tool call's arguments) is validated.

var (
	recordKeys   = []string{"id", "timestamp", "type", "content", "thoughts", "toolCalls", "tokens", "model"}
	thoughtKeys  = []string{"subject", "description"}
	tokenKeys    = []string{"input", "output", "cached"}
	toolCallKeys = []string{"id", "name", "args", "result", "status"}
	responseKeys = []string{"output", "error"}
	partKeys     = []string{"text", "thought", "functionResponse"}
	respKeys     = []string{"id", "name", "response"}
)

// str decodes the JSON string raw; ok is false for any other value.
func str(raw []byte) (string, bool) {
	var s string
	if jsonl.String(raw, 0, &s) == len(raw) {
		return s, true
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	return s, json.Unmarshal(raw, &s) == nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// response is what responseText reads of a function response.
type response struct {
	Output *string `json:"output"`
	Error  *string `json:"error"`
}

// quickRecord is decode's fast path.
func quickRecord(raw []byte) (record, bool) {
	var r record
	end := jsonl.Known(raw, skipWS(raw, 0), recordKeys, func(k, at int) int {
		switch recordKeys[k] {
		case "id":
			return jsonl.String(raw, at, &r.ID)
		case "timestamp":
			return jsonl.String(raw, at, &r.Timestamp)
		case "type":
			return jsonl.String(raw, at, &r.Type)
		case "model":
			return jsonl.String(raw, at, &r.Model)
		case "content": // read further by userParts or geminiText
			return jsonl.RawUnchecked(raw, at, (*[]byte)(&r.Content))
		case "thoughts":
			return jsonl.Array(raw, at, func() { r.Thoughts = []thought{} }, func(at int) int {
				var t thought
				e := jsonl.Known(raw, at, thoughtKeys, func(k, at int) int {
					return jsonl.String(raw, at, [...]*string{&t.Subject, &t.Description}[k])
				})
				r.Thoughts = append(r.Thoughts, t)
				return e
			})
		case "toolCalls":
			return jsonl.Array(raw, at, func() { r.ToolCalls = []toolCall{} }, func(at int) int {
				var c toolCall
				e := quickCall(raw, at, &c)
				r.ToolCalls = append(r.ToolCalls, c)
				return e
			})
		case "tokens":
			t := new(tokens)
			r.Tokens = t
			return jsonl.Known(raw, at, tokenKeys, func(k, at int) int {
				return jsonl.Int(raw, at, [...]*int64{&t.Input, &t.Output, &t.Cached}[k])
			})
		}
		return -1
	})
	if !jsonl.Whole(raw, end) {
		return record{}, false
	}
	return r, true
}

// quickCall reads the tool call at b[at] into *c.
func quickCall(b []byte, at int, c *toolCall) int {
	return jsonl.Known(b, at, toolCallKeys, func(k, at int) int {
		switch toolCallKeys[k] {
		case "id":
			return jsonl.String(b, at, &c.ID)
		case "name":
			return jsonl.String(b, at, &c.Name)
		case "args": // passed on as the tool_use block's input
			return jsonl.Raw(b, at, (*[]byte)(&c.Args))
		case "result":
			return jsonl.Array(b, at, func() { c.Result = []part{} }, func(at int) int {
				var p part
				e := quickPart(b, at, &p)
				c.Result = append(c.Result, p)
				return e
			})
		case "status":
			return jsonl.String(b, at, &c.Status)
		}
		return -1
	})
}

// quickPart reads the part at b[at] into *p.
func quickPart(b []byte, at int, p *part) int {
	return jsonl.Known(b, at, partKeys, func(k, at int) int {
		switch partKeys[k] {
		case "text":
			p.Text = new(string)
			return jsonl.String(b, at, p.Text)
		case "thought":
			return jsonl.Bool(b, at, &p.Thought)
		case "functionResponse":
			fr := new(functionResponse)
			p.FunctionResponse = fr
			return jsonl.Known(b, at, respKeys, func(k, at int) int {
				switch respKeys[k] {
				case "id":
					return jsonl.String(b, at, &fr.ID)
				case "name":
					return jsonl.String(b, at, &fr.Name)
				}
				// Read further by responseText.
				return jsonl.RawUnchecked(b, at, (*[]byte)(&fr.Response))
			})
		}
		return -1
	})
}

// quickParts is the parts of the content c when it is a list of them.
func quickParts(c []byte) ([]part, bool) {
	var parts []part
	end := jsonl.Array(c, 0, func() { parts = []part{} }, func(at int) int {
		var p part
		e := quickPart(c, at, &p)
		parts = append(parts, p)
		return e
	})
	if !jsonl.Whole(c, end) {
		return nil, false
	}
	return parts, true
}

// quickResponse is a function response read as responseText reads it;
// zero when not ok.
func quickResponse(b []byte) (response, bool) {
	var r response
	end := jsonl.Known(b, 0, responseKeys, func(k, at int) int {
		s := new(string)
		if k == 0 {
			r.Output = s
		} else {
			r.Error = s
		}
		return jsonl.String(b, at, s)
	})
	if !jsonl.Whole(b, end) {
		return response{}, false
	}
	return r, true
}
