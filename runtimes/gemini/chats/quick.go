package chats

import (
	"encoding/json"
	"strconv"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// The quick decoders read a record for its page as encoding/json reads it
// into record, in one pass and without reflection: encoding/json was two
// thirds of a page of an indexed chat file, a third of it validating each
// line before decoding it. Like fastLine they take only the shapes Gemini
// writes, each key in its exact spelling once, each member of its expected
// type and none null; anything else (ok false) goes to encoding/json. And
// like fastLine they do not validate what they skip, so a record whose
// unread members are not valid JSON is shown (the index counted it) where
// encoding/json would have dropped it; what a page passes on raw (a tool
// call's arguments) is validated.

var (
	recordKeys   = []string{"id", "timestamp", "type", "content", "thoughts", "toolCalls", "tokens", "model"}
	thoughtKeys  = []string{"subject", "description"}
	tokenKeys    = []string{"input", "output", "cached"}
	toolCallKeys = []string{"id", "name", "args", "result", "status"}
	responseKeys = []string{"output", "error"}
)

// response is what responseText reads of a function response.
type response struct {
	Output *string `json:"output"`
	Error  *string `json:"error"`
}

// quickObject walks the object at b[i] whose members of interest are
// known: fn reads the value at b[at] of known[k] and returns where it
// ends, or -1 to refuse it. Other members are skipped. It returns where
// the object ends, or -1 when it is not one of that shape, repeats a known
// key or has a key encoding/json could match to one otherwise spelt.
func quickObject(b []byte, i int, known []string, fn func(k, at int) int) int {
	var seen uint64
	return jsonl.Object(b, i, func(key []byte, at int) int {
		for k, name := range known {
			if string(key) == name {
				if seen&(1<<k) != 0 {
					return -1
				}
				seen |= 1 << k
				return fn(k, at)
			}
		}
		if odd(key, known) {
			return -1
		}
		n := valueLen(b[at:])
		if n <= 0 {
			return -1
		}
		return at + n
	})
}

// quickString reads the string at b[at] into *dst; where it ends, or -1.
func quickString(b []byte, at int, dst *string) int {
	if at >= len(b) || b[at] != '"' {
		return -1
	}
	n := stringLen(b[at:])
	if n <= 0 {
		return -1
	}
	s, ok := str(b[at : at+n])
	if !ok {
		return -1
	}
	*dst = s
	return at + n
}

// quickRaw copies the value at b[at], which is not null, into *dst.
func quickRaw(b []byte, at int, dst *[]byte) int {
	n := valueLen(b[at:])
	if n <= 0 || isNull(b[at:at+n]) {
		return -1
	}
	*dst = append([]byte(nil), b[at:at+n]...)
	return at + n
}

// quickArray calls fn with the offset of each element of the array at
// b[at]; empty first (encoding/json makes an empty, not nil, slice of []).
func quickArray(b []byte, at int, empty func(), fn func(at int) int) int {
	if at >= len(b) || b[at] != '[' {
		return -1
	}
	empty()
	return arrayEnd(b, at, fn)
}

// quickRecord is decode's fast path.
func quickRecord(raw []byte) (record, bool) {
	var r record
	end := quickObject(raw, skipWS(raw, 0), recordKeys, func(k, at int) int {
		switch recordKeys[k] {
		case "id":
			return quickString(raw, at, &r.ID)
		case "timestamp":
			return quickString(raw, at, &r.Timestamp)
		case "type":
			return quickString(raw, at, &r.Type)
		case "model":
			return quickString(raw, at, &r.Model)
		case "content":
			return quickRaw(raw, at, (*[]byte)(&r.Content))
		case "thoughts":
			return quickArray(raw, at, func() { r.Thoughts = []thought{} }, func(at int) int {
				var t thought
				e := quickObject(raw, at, thoughtKeys, func(k, at int) int {
					if k == 0 {
						return quickString(raw, at, &t.Subject)
					}
					return quickString(raw, at, &t.Description)
				})
				r.Thoughts = append(r.Thoughts, t)
				return e
			})
		case "toolCalls":
			return quickArray(raw, at, func() { r.ToolCalls = []toolCall{} }, func(at int) int {
				var c toolCall
				e := quickCall(raw, at, &c)
				r.ToolCalls = append(r.ToolCalls, c)
				return e
			})
		case "tokens":
			t := new(tokens)
			r.Tokens = t
			return quickObject(raw, at, tokenKeys, func(k, at int) int {
				return quickInt(raw, at, [...]*int64{&t.Input, &t.Output, &t.Cached}[k])
			})
		}
		return -1
	})
	if end < 0 || skipWS(raw, end) != len(raw) {
		return record{}, false
	}
	return r, true
}

// quickInt reads the integer at b[at] into *dst as encoding/json reads it
// into an int64; a fraction, exponent or overflow is refused.
func quickInt(b []byte, at int, dst *int64) int {
	n := valueLen(b[at:])
	if n <= 0 {
		return -1
	}
	v, err := strconv.ParseInt(string(b[at:at+n]), 10, 64)
	if err != nil {
		return -1
	}
	*dst = v
	return at + n
}

// quickCall reads the tool call at b[at] into *c.
func quickCall(b []byte, at int, c *toolCall) int {
	return quickObject(b, at, toolCallKeys, func(k, at int) int {
		switch toolCallKeys[k] {
		case "id":
			return quickString(b, at, &c.ID)
		case "name":
			return quickString(b, at, &c.Name)
		case "args":
			// Passed on as the tool_use block's input, so valid or refused:
			// a page that holds invalid JSON cannot be encoded.
			e := quickRaw(b, at, (*[]byte)(&c.Args))
			if e > 0 && !json.Valid(c.Args) {
				return -1
			}
			return e
		case "result":
			return quickArray(b, at, func() { c.Result = []part{} }, func(at int) int {
				var p part
				e := quickPart(b, at, &p)
				c.Result = append(c.Result, p)
				return e
			})
		case "status":
			return quickString(b, at, &c.Status)
		}
		return -1
	})
}

// quickPart reads the part at b[at] into *p.
func quickPart(b []byte, at int, p *part) int {
	return quickObject(b, at, partKeys, func(k, at int) int {
		switch partKeys[k] {
		case "text":
			p.Text = new(string)
			return quickString(b, at, p.Text)
		case "thought":
			switch {
			case hasLiteral(b[at:], "true"):
				p.Thought = true
				return at + 4
			case hasLiteral(b[at:], "false"):
				return at + 5
			}
			return -1
		case "functionResponse":
			fr := new(functionResponse)
			p.FunctionResponse = fr
			return quickObject(b, at, respKeys, func(k, at int) int {
				switch respKeys[k] {
				case "id":
					return quickString(b, at, &fr.ID)
				case "name":
					return quickString(b, at, &fr.Name)
				}
				return quickRaw(b, at, (*[]byte)(&fr.Response))
			})
		}
		return -1
	})
}

// hasLiteral reports whether b starts with the literal lit, whole.
func hasLiteral(b []byte, lit string) bool {
	return len(b) >= len(lit) && string(b[:len(lit)]) == lit && valueLen(b) == len(lit)
}

// quickParts is the parts of the content c when it is a list of them.
func quickParts(c []byte) ([]part, bool) {
	var parts []part
	end := quickArray(c, 0, func() { parts = []part{} }, func(at int) int {
		var p part
		e := quickPart(c, at, &p)
		parts = append(parts, p)
		return e
	})
	if end < 0 || skipWS(c, end) != len(c) {
		return nil, false
	}
	return parts, true
}

// quickResponse is a function response read as responseText reads it;
// zero when not ok.
func quickResponse(b []byte) (response, bool) {
	var r response
	end := quickObject(b, 0, responseKeys, func(k, at int) int {
		s := new(string)
		if k == 0 {
			r.Output = s
		} else {
			r.Error = s
		}
		return quickString(b, at, s)
	})
	if end < 0 || skipWS(b, end) != len(b) {
		return response{}, false
	}
	return r, true
}
