package chats

import "github.com/cdevd/cdevd/internal/jsonl"

// quickLine reads a line as parseLine does, for the shapes Gemini writes,
// with the shared schema reader (lineSchema): only the members a replay
// needs are read, and the long strings of answers and tool output are
// skipped, not decoded (encoding/json was 90% of a first read). Anything
// else (a key written with escapes or in another case, a member of an
// unexpected type or null, whose partial decoding is encoding/json's to
// define) makes it refuse, and lineOf goes to parseLine. Like the other
// quick readers it does not validate what it skips: a record whose skipped
// members are not valid JSON is taken, and left out of its page if it does
// not decode then (see ToMessage). FuzzFastLine holds it to parseLine.
func quickLine(b []byte) (Line, bool) { return new(lineReader).line(b) }

// line is quickLine with lr as its reader, which it leaves zero (nothing
// of b kept): a replay reuses one, as a reader made for each line (the
// schema's walk puts it on the heap) was five sixths of what a replay
// allocated, and made it half again as long.
func (lr *lineReader) line(b []byte) (Line, bool) {
	l, ok := lr.read(b)
	*lr = lineReader{}
	return l, ok
}

func (lr *lineReader) read(b []byte) (Line, bool) {
	if len(b) == 0 || b[0] != '{' { // led by spaces: parseLine's business
		return Line{}, false
	}
	end := lineSchema.ReadAt(b, 0, lr)
	if !jsonl.Whole(b, end) {
		return Line{}, false
	}
	switch {
	case lr.isSet:
		return lr.set, true
	case lr.sid != nil && lr.ph != nil:
		lr.header.SessionID, lr.header.ProjectHash = *lr.sid, *lr.ph
		return Line{Kind: KindHeader, Header: lr.header}, true
	}
	r, ok := lr.record(b[:end], 0)
	if !ok || r.ID == "" {
		return Line{}, false
	}
	return Line{Kind: KindRecord, Record: r}, true
}

// lineOf is the Line of b: quickLine's, else parseLine's. A record's Raw
// is a part of b.
func lineOf(b []byte) (Line, error) { return new(lineReader).lineOf(b) }

// lineOf is lineOf with lr as quickLine's reader (see line).
func (lr *lineReader) lineOf(b []byte) (Line, error) {
	if l, ok := lr.line(b); ok {
		return l, nil
	}
	return parseLine(b)
}

// lineReader is what quickLine reads of a line of any kind: a header's
// and a $set's members, and what a replay needs of a record's (also read
// for each record of a $set's message list).
type lineReader struct {
	set       Line // a $set's, when isSet (in the reader: one allocated per $set was a tenth of a replay's bytes)
	isSet     bool
	sid, ph   *string
	header    Header // startTime, lastUpdated
	id, typ   string
	content   []byte // raw, read once the type is known
	parts     []part // a user record's content, read as it was met
	partsRead bool
	thoughts  bool
	calls     []string
}

// recordFields are the members of a record a replay reads, in the order
// Gemini writes them (the type before the content).
var recordFields = []jsonl.Field[lineReader]{
	jsonl.StringKey("id", func(r *lineReader) *string { return &r.id }),
	jsonl.StringKey("type", func(r *lineReader) *string { return &r.typ }),
	jsonl.FuncKey("content", func(b []byte, at int, r *lineReader) int {
		e := jsonl.ValueEnd(b, at)
		if e < 0 {
			return -1
		}
		r.content = b[at:e]
		// Gemini writes the type first: a user record's parts are read now,
		// going over a long function response once rather than twice.
		if r.typ == "user" && b[at] == '[' {
			if r.parts, r.partsRead = quickInfoParts(r.content); !r.partsRead {
				return -1
			}
		}
		return e
	}),
	// Whether there are any thoughts, not what they say.
	jsonl.FuncKey("thoughts", func(b []byte, at int, r *lineReader) int {
		n := 0
		e := jsonl.Array(b, at, nil, func(at int) int { n++; return jsonl.ValueEnd(b, at) })
		r.thoughts = n > 0
		return e
	}),
	// The tool calls' ids.
	jsonl.FuncKey("toolCalls", func(b []byte, at int, r *lineReader) int {
		r.calls = []string{}
		return jsonl.Array(b, at, nil, func(at int) int {
			r.calls = append(r.calls, "")
			return callIDSchema.ReadAt(b, at, &r.calls[len(r.calls)-1])
		})
	}),
}

var (
	// lineSchema is every member quickLine reads of a line: a header's, a
	// $set's (its value read by setSchema) and a record's.
	lineSchema = jsonl.NewSchema(append([]jsonl.Field[lineReader]{
		jsonl.FuncKey("$set", func(b []byte, at int, r *lineReader) int {
			r.set, r.isSet = Line{Kind: KindSet}, true
			return setSchema.ReadAt(b, at, &r.set)
		}),
		jsonl.StringPtrKey("sessionId", func(r *lineReader) **string { return &r.sid }),
		jsonl.StringPtrKey("projectHash", func(r *lineReader) **string { return &r.ph }),
		jsonl.StringKey("startTime", func(r *lineReader) *string { return &r.header.StartTime }),
		jsonl.StringKey("lastUpdated", func(r *lineReader) *string { return &r.header.LastUpdated }),
	}, recordFields...)...)
	// recordInfoSchema is what a replay reads of a record of a $set's list.
	recordInfoSchema = jsonl.NewSchema(recordFields...)
	callIDSchema     = jsonl.NewSchema(jsonl.StringKey("id", func(id *string) *string { return id }))
	setSchema        = jsonl.NewSchema(
		jsonl.StringKey("sessionId", func(l *Line) *string { return &l.Set.SessionID }),
		jsonl.StringKey("projectHash", func(l *Line) *string { return &l.Set.ProjectHash }),
		jsonl.StringKey("startTime", func(l *Line) *string { return &l.Set.StartTime }),
		jsonl.StringKey("lastUpdated", func(l *Line) *string { return &l.Set.LastUpdated }),
		jsonl.FuncKey("messages", readSetMessages),
	)
	// partInfoSchema is what a replay reads of a part: a function
	// response's id, not its output.
	partInfoSchema = jsonl.NewSchema(
		jsonl.StringPtrKey("text", func(p *part) **string { return &p.Text }),
		jsonl.BoolKey("thought", func(p *part) *bool { return &p.Thought }),
		jsonl.PtrKey("functionResponse", func(p *part) **functionResponse { return &p.FunctionResponse }, responseIDSchema),
	)
	responseIDSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(r *functionResponse) *string { return &r.ID }),
		jsonl.StringKey("name", func(r *functionResponse) *string { return &r.Name }),
	)
)

// readSetMessages reads the message list of a $set at b[at] into l: each
// record keeps where it is in the line, so that the store can read it
// again from the file instead of holding it.
func readSetMessages(b []byte, at int, l *Line) int {
	l.HasMsgs, l.SetMsgs = true, []Record{}
	if b[at] != '[' {
		return jsonl.ValueEnd(b, at) // not a list: the list emptied
	}
	return jsonl.Array(b, at, nil, func(at int) int {
		e := jsonl.ValueEnd(b, at)
		if e < 0 || b[at] != '{' {
			return e // not an object: skipped, as parseSet does
		}
		var rr lineReader
		if recordInfoSchema.ReadAt(b, at, &rr) != e {
			return -1
		}
		r, ok := rr.record(b[:e], at)
		if !ok {
			return -1
		}
		if r.ID != "" { // no id: skipped
			l.SetMsgs = append(l.SetMsgs, r)
		}
		return e
	})
}

// record is the Record rr read, the object at b[start:]; ok is false when
// its content needs encoding/json.
func (rr *lineReader) record(b []byte, start int) (Record, bool) {
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
		parts = append(parts, part{})
		if e := jsonl.ValueEnd(c, at); e > 0 && string(c[at:e]) == "null" {
			return e
		}
		return partInfoSchema.ReadAt(c, at, &parts[len(parts)-1])
	})
	return parts, jsonl.Whole(c, end)
}
