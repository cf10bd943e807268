package chats

import "github.com/cdevd/cdevd/internal/jsonl"

// quickLine reads a line as parseLine does, for the shapes Gemini writes,
// with the shared member reader (jsonl.Known): only the members a replay
// needs are read, and the long strings of answers and tool output are
// skipped, not decoded (encoding/json was 90% of a first read). Anything
// else (a key written with escapes or in another case, a member of an
// unexpected type or null, whose partial decoding is encoding/json's to
// define) makes it refuse, and lineOf goes to parseLine. Like the other
// quick readers it does not validate what it skips: a record whose skipped
// members are not valid JSON is taken, and left out of its page if it does
// not decode then (see ToMessage). FuzzQuickLine holds it to parseLine.
func quickLine(b []byte) (Line, bool) {
	if len(b) == 0 || b[0] != '{' { // led by spaces: parseLine's business
		return Line{}, false
	}
	var l Line
	var sid, ph *string
	var h Header
	var rr recordReader
	set := -1
	end := jsonl.Known(b, 0, lineKeys, func(k, at int) int {
		switch lineKeys[k] {
		case "$set":
			set = at
			return jsonl.ValueEnd(b, at)
		case "sessionId":
			sid = new(string)
			return jsonl.String(b, at, sid)
		case "projectHash":
			ph = new(string)
			return jsonl.String(b, at, ph)
		case "startTime":
			return jsonl.String(b, at, &h.StartTime)
		case "lastUpdated":
			return jsonl.String(b, at, &h.LastUpdated)
		}
		return rr.member(b, k-recordKeysAt, at)
	})
	if !jsonl.Whole(b, end) {
		return Line{}, false
	}
	switch {
	case set >= 0:
		return quickSet(b, set)
	case sid != nil && ph != nil:
		h.SessionID, h.ProjectHash = *sid, *ph
		return Line{Kind: KindHeader, Header: h}, true
	}
	r, ok := rr.record(b[:end], 0)
	if !ok || r.ID == "" {
		return Line{}, false
	}
	l.Kind, l.Record = KindRecord, r
	return l, true
}

// lineOf is the Line of b: quickLine's, else parseLine's. A record's Raw
// is a part of b.
func lineOf(b []byte) (Line, error) {
	if l, ok := quickLine(b); ok {
		return l, nil
	}
	return parseLine(b)
}

// The members quickLine reads: a header's and a $set's, then a record's
// (from recordKeysAt on, in recordReader's order).
var (
	lineKeys     = []string{"$set", "sessionId", "projectHash", "startTime", "lastUpdated", "id", "type", "content", "thoughts", "toolCalls"}
	setKeys      = []string{"sessionId", "projectHash", "startTime", "lastUpdated", "messages"}
	recordKeysAt = 5
	infoKeys     = lineKeys[recordKeysAt:]
	callIDKeys   = []string{"id"}
)

// quickSet is the Line of the $set line b whose value is at b[at].
func quickSet(b []byte, at int) (Line, bool) {
	l := Line{Kind: KindSet}
	s := &l.Set
	bad := false
	end := jsonl.Known(b, at, setKeys, func(k, at int) int {
		switch k {
		case 0, 1, 2, 3:
			return jsonl.String(b, at, [...]*string{&s.SessionID, &s.ProjectHash, &s.StartTime, &s.LastUpdated}[k])
		}
		l.HasMsgs, l.SetMsgs = true, []Record{}
		if b[at] != '[' {
			return jsonl.ValueEnd(b, at) // not a list: the list emptied
		}
		return jsonl.Array(b, at, nil, func(at int) int {
			e := jsonl.ValueEnd(b, at)
			if e < 0 || b[at] != '{' {
				return e // not an object: skipped, as parseSet does
			}
			var rr recordReader
			if jsonl.Known(b, at, infoKeys, func(k, vat int) int { return rr.member(b, k, vat) }) != e {
				bad = true
				return -1
			}
			r, ok := rr.record(b[:e], at)
			if !ok {
				bad = true
				return -1
			}
			if r.ID != "" { // no id: skipped
				l.SetMsgs = append(l.SetMsgs, r)
			}
			return e
		})
	})
	if end < 0 || bad {
		return Line{}, false
	}
	return l, true
}

// recordReader gathers what a replay needs of a record's members (infoKeys,
// in that order), as Known walks them.
type recordReader struct {
	id, typ   string
	content   []byte // raw, read once the type is known
	parts     []part // a user record's content, read as it was met
	partsRead bool
	thoughts  bool
	calls     []string
}

// member reads the value at b[at] of infoKeys[k]; it returns where it ends,
// or -1 to refuse the line.
func (rr *recordReader) member(b []byte, k, at int) int {
	switch infoKeys[k] {
	case "id":
		return jsonl.String(b, at, &rr.id)
	case "type":
		return jsonl.String(b, at, &rr.typ)
	case "content":
		e := jsonl.ValueEnd(b, at)
		if e < 0 {
			return -1
		}
		rr.content = b[at:e]
		// Gemini writes the type first: a user record's parts are read now,
		// going over a long function response once rather than twice.
		if rr.typ == "user" && b[at] == '[' {
			if rr.parts, rr.partsRead = quickInfoParts(rr.content); !rr.partsRead {
				return -1
			}
		}
		return e
	case "thoughts": // whether there are any, not what they say
		n := 0
		e := jsonl.Array(b, at, nil, func(at int) int { n++; return jsonl.ValueEnd(b, at) })
		rr.thoughts = n > 0
		return e
	}
	// toolCalls: the ids.
	rr.calls = []string{}
	return jsonl.Array(b, at, nil, func(at int) int {
		id := ""
		e := jsonl.Known(b, at, callIDKeys, func(_, at int) int { return jsonl.String(b, at, &id) })
		rr.calls = append(rr.calls, id)
		return e
	})
}

// record is the Record rr read, the object at b[start:]; ok is false when
// its content needs encoding/json.
func (rr *recordReader) record(b []byte, start int) (Record, bool) {
	r := Record{ID: rr.id, Type: rr.typ, Raw: b[start:], Start: start}
	c := rr.content
	switch rr.typ {
	case "user":
		switch {
		case len(c) > 0 && c[0] == '"':
			var s string
			if jsonl.String(c, 0, &s) < 0 {
				return Record{}, false
			}
			if s != "" {
				rr.parts = []part{{Text: &s}}
			}
		case len(c) > 0 && c[0] == '[' && !rr.partsRead:
			var ok bool
			if rr.parts, ok = quickInfoParts(c); !ok {
				return Record{}, false
			}
		}
		r.info = userInfo(rr.parts)
	case "gemini":
		text := len(c) > 2 && c[0] == '"' // any escape decodes to something
		if len(c) > 0 && c[0] == '[' {
			parts, ok := quickInfoParts(c)
			if !ok {
				return Record{}, false
			}
			text = partsText(parts) != ""
		}
		r.info = info{calls: rr.calls, visible: text || rr.thoughts || len(rr.calls) > 0}
		if len(rr.calls) == 0 {
			r.info.calls = nil
		}
	}
	return r, true
}

// quickInfoParts reads a content list of parts as a replay needs them (a
// function response's id, not its output); ok is false when it needs
// encoding/json (a part that is not an object or null, say).
func quickInfoParts(c []byte) ([]part, bool) {
	parts := []part{}
	end := jsonl.Array(c, 0, nil, func(at int) int {
		var p part
		if e := jsonl.ValueEnd(c, at); e > 0 && string(c[at:e]) == "null" {
			parts = append(parts, p)
			return e
		}
		e := jsonl.Known(c, at, partKeys, func(k, at int) int {
			switch partKeys[k] {
			case "text":
				p.Text = new(string)
				return jsonl.String(c, at, p.Text)
			case "thought":
				return jsonl.Bool(c, at, &p.Thought)
			}
			fr := new(functionResponse)
			p.FunctionResponse = fr
			return jsonl.Known(c, at, respKeys[:2], func(k, at int) int {
				return jsonl.String(c, at, [...]*string{&fr.ID, &fr.Name}[k])
			})
		})
		parts = append(parts, p)
		return e
	})
	return parts, jsonl.Whole(c, end)
}
