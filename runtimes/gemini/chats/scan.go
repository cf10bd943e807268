package chats

import (
	"bytes"

	"github.com/cdevd/cdevd/internal/jsonl"
)

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

// line is quickLine with lr as its reader: a replay reuses one, as a
// reader made for each line (the schema's walk puts it on the heap) was
// five sixths of what a replay allocated, and made it half again as long.
// What lr read of b is dropped, but for the last record's strings.
func (lr *lineReader) line(b []byte) (Line, bool) {
	l, ok := lr.read(b)
	lr.reset()
	return l, ok
}

func (lr *lineReader) read(b []byte) (Line, bool) {
	if len(b) == 0 || b[0] != '{' { // led by spaces: parseLine's business
		return Line{}, false
	}
	end := lineSchema.ReadShapedAt(lr.shape.Line(), b, 0, lr)
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
// for each record of a $set's message list, by elem). The strings it reads
// are parts of the line, copied only into what a Line keeps.
type lineReader struct {
	set     Line // a $set's, when isSet (in the reader: one allocated per $set was a tenth of a replay's bytes)
	isSet   bool
	sid, ph *string
	header  Header // startTime, lastUpdated
	id      []byte
	typ     string
	content []byte // raw, read once the type is known
	parts   partsInfo
	read1   bool // parts is content's
	thought bool // the record has thoughts (not what they say)
	calls   [][]byte
	part    partInfo // the part being read (see readParts)
	// last is the last record's strings, kept from line to line: Gemini
	// writes a record again as it grows, on the next line, and its id and
	// tool calls met again are those strings rather than new ones.
	last struct {
		id    string
		calls []string
	}
	elem *lineReader // for the records of a $set's list
	// The keys of the lines read, while a scan runs (see jsonl.Shape):
	// finding and naming each key (most of them of members not read) was
	// a third of a replay.
	shape jsonl.PerScan[jsonl.Shape]
}

// reset drops what lr read of a line, keeping the last record's strings
// and the room it made (emptied: what it held were parts of the line).
func (lr *lineReader) reset() {
	clear(lr.calls)
	*lr = lineReader{last: lr.last, calls: lr.calls[:0], elem: lr.elem, shape: lr.shape}
}

// recordFields are the members of a record a replay reads, in the order
// Gemini writes them (the type before the content).
var recordFields = []jsonl.Field[lineReader]{
	jsonl.FuncKey("id", func(b []byte, at int, r *lineReader) int { return jsonl.Bytes(b, at, &r.id) }),
	// A string for the two types a replay tells apart, none made.
	jsonl.FuncKey("type", func(b []byte, at int, r *lineReader) int {
		var t []byte
		e := jsonl.Bytes(b, at, &t)
		switch string(t) {
		case "user":
			r.typ = "user"
		case "gemini":
			r.typ = "gemini"
		default:
			r.typ = string(t)
		}
		return e
	}),
	jsonl.FuncKey("content", func(b []byte, at int, r *lineReader) int {
		e := jsonl.ValueEnd(b, at)
		if e < 0 {
			return -1
		}
		r.content = b[at:e]
		// Gemini writes the type first: a user record's parts are read now,
		// going over a long function response once rather than twice.
		if r.typ == "user" && b[at] == '[' {
			if r.parts, r.read1 = r.readParts(r.content, true); !r.read1 {
				return -1
			}
		}
		return e
	}),
	// Whether there are any thoughts, not what they say.
	jsonl.FuncKey("thoughts", func(b []byte, at int, r *lineReader) int {
		n := 0
		e := jsonl.Array(b, at, nil, func(at int) int { n++; return jsonl.ValueEnd(b, at) })
		r.thought = n > 0
		return e
	}),
	// The tool calls' ids.
	jsonl.FuncKey("toolCalls", func(b []byte, at int, r *lineReader) int {
		return jsonl.Array(b, at, nil, func(at int) int {
			r.calls = append(r.calls, nil)
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
			return setSchema.ReadAt(b, at, r)
		}),
		jsonl.StringPtrKey("sessionId", func(r *lineReader) **string { return &r.sid }),
		jsonl.StringPtrKey("projectHash", func(r *lineReader) **string { return &r.ph }),
		jsonl.StringKey("startTime", func(r *lineReader) *string { return &r.header.StartTime }),
		jsonl.StringKey("lastUpdated", func(r *lineReader) *string { return &r.header.LastUpdated }),
	}, recordFields...)...)
	// recordInfoSchema is what a replay reads of a record of a $set's list.
	recordInfoSchema = jsonl.NewSchema(recordFields...)
	callIDSchema     = jsonl.NewSchema(jsonl.FuncKey("id", jsonl.Bytes))
	setSchema        = jsonl.NewSchema(
		jsonl.StringKey("sessionId", func(r *lineReader) *string { return &r.set.Set.SessionID }),
		jsonl.StringKey("projectHash", func(r *lineReader) *string { return &r.set.Set.ProjectHash }),
		jsonl.StringKey("startTime", func(r *lineReader) *string { return &r.set.Set.StartTime }),
		jsonl.StringKey("lastUpdated", func(r *lineReader) *string { return &r.set.Set.LastUpdated }),
		jsonl.FuncKey("messages", readSetMessages),
	)
	// partInfoSchema is what a replay reads of a part: a function
	// response's id, not its output.
	partInfoSchema = jsonl.NewSchema(
		jsonl.FuncKey("text", func(b []byte, at int, p *partInfo) int { return jsonl.Bytes(b, at, &p.text) }),
		jsonl.BoolKey("thought", func(p *partInfo) *bool { return &p.thought }),
		jsonl.FuncKey("functionResponse", func(b []byte, at int, p *partInfo) int {
			p.response = true
			return responseIDSchema.ReadAt(b, at, p)
		}),
	)
	responseIDSchema = jsonl.NewSchema(
		jsonl.FuncKey("id", func(b []byte, at int, p *partInfo) int { return jsonl.Bytes(b, at, &p.responseID) }),
		// A string (as a part decodes it), not kept.
		jsonl.FuncKey("name", func(b []byte, at int, _ *partInfo) int {
			var name []byte
			return jsonl.Bytes(b, at, &name)
		}),
	)
)

// readSetMessages reads the message list of a $set at b[at] into r.set:
// each record keeps where it is in the line, so that the store can read
// it again from the file instead of holding it.
func readSetMessages(b []byte, at int, r *lineReader) int {
	l := &r.set
	l.HasMsgs, l.SetMsgs = true, []Record{}
	if b[at] != '[' {
		return jsonl.ValueEnd(b, at) // not a list: the list emptied
	}
	if r.elem == nil {
		r.elem = new(lineReader)
	}
	rr := r.elem
	return jsonl.Array(b, at, nil, func(at int) int {
		e := jsonl.ValueEnd(b, at)
		if e < 0 || b[at] != '{' {
			return e // not an object: skipped, as parseSet does
		}
		defer rr.reset()
		if recordInfoSchema.ReadAt(b, at, rr) != e {
			return -1
		}
		rec, ok := rr.record(b[:e], at)
		if !ok {
			return -1
		}
		if rec.ID != "" { // no id: skipped
			l.SetMsgs = append(l.SetMsgs, rec)
		}
		return e
	})
}

// record is the Record lr read, the object at b[start:]; ok is false when
// its content needs encoding/json.
func (lr *lineReader) record(b []byte, start int) (Record, bool) {
	r := Record{ID: lr.lastID(), Type: lr.typ, Raw: b[start:], Start: start}
	c := lr.content
	switch lr.typ {
	case "user":
		switch {
		case len(c) > 0 && c[0] == '"':
			p := &lr.part
			if jsonl.Bytes(c, 0, &p.text) < 0 {
				return Record{}, false
			}
			lr.parts.add(p, true)
		case len(c) > 0 && c[0] == '[' && !lr.read1:
			var ok bool
			if lr.parts, ok = lr.readParts(c, true); !ok {
				return Record{}, false
			}
		}
		r.info = lr.parts.userInfo()
	case "gemini":
		text := len(c) > 2 && c[0] == '"' // any escape decodes to something
		if len(c) > 0 && c[0] == '[' {
			parts, ok := lr.readParts(c, false)
			if !ok {
				return Record{}, false
			}
			text = parts.said
		}
		r.info = info{calls: lr.lastCalls(), visible: text || lr.thought || len(lr.calls) > 0}
	}
	return r, true
}

// lastID is the id lr read, the last record's string when it is the same.
func (lr *lineReader) lastID() string {
	if string(lr.id) != lr.last.id {
		lr.last.id = string(lr.id)
	}
	return lr.last.id
}

// lastCalls is the tool-call ids lr read (nil for none), the last
// record's list when it is the same.
func (lr *lineReader) lastCalls() []string {
	if len(lr.calls) == 0 {
		return nil
	}
	same := len(lr.calls) == len(lr.last.calls)
	for i := 0; same && i < len(lr.calls); i++ {
		same = string(lr.calls[i]) == lr.last.calls[i]
	}
	if !same {
		lr.last.calls = make([]string, len(lr.calls))
		for i, id := range lr.calls {
			lr.last.calls[i] = string(id)
		}
	}
	return lr.last.calls
}

// partInfo is what a replay reads of one part of a content list; its
// strings are parts of the line.
type partInfo struct {
	text       []byte
	thought    bool
	response   bool // a function response, whose id is responseID
	responseID []byte
}

// partsInfo is what a replay keeps of a content's parts, taken one by one
// (add) as userInfo and partsText read a list of them.
type partsInfo struct {
	context   bool   // a text starts the session context
	prompt    string // the first text that is not empty
	said      bool   // a text that is not empty and not a thought
	responses []string
}

// add takes in part p; only a user record's (user) keeps strings.
func (pi *partsInfo) add(p *partInfo, user bool) {
	if len(p.text) > 0 && !p.thought {
		pi.said = true
	}
	if !user || pi.context {
		return
	}
	switch {
	case bytes.HasPrefix(p.text, []byte(contextPrefix)):
		pi.context = true
	case len(p.text) > 0:
		if pi.prompt == "" {
			pi.prompt = string(p.text)
		}
	case p.response:
		pi.responses = append(pi.responses, string(p.responseID))
	}
}

// userInfo is the info of a user record whose parts pi took in.
func (pi *partsInfo) userInfo() info {
	if pi.context {
		return info{} // the synthetic context: not a message
	}
	return info{prompt: pi.prompt, visible: pi.prompt != "", responses: pi.responses}
}

// readParts reads a content list of parts as a replay needs them (a
// function response's id, not its output); ok is false when it needs
// encoding/json (a part that is not an object or null, say).
func (lr *lineReader) readParts(c []byte, user bool) (partsInfo, bool) {
	var pi partsInfo
	p := &lr.part // one of its own for each part escaped to the heap
	end := jsonl.Array(c, 0, nil, func(at int) int {
		if e := jsonl.ValueEnd(c, at); e > 0 && string(c[at:e]) == "null" {
			return e
		}
		*p = partInfo{}
		e := partInfoSchema.ReadAt(c, at, p)
		if e > 0 {
			pi.add(p, user)
		}
		*p = partInfo{} // it borrows from c
		return e
	})
	return pi, jsonl.Whole(c, end)
}
