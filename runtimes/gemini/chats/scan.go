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
func (lr *lineReader) line(b []byte) (Line, bool) {
	defer lr.reset()
	switch kind, ok := lr.scan(b); {
	case !ok:
		return Line{}, false
	case kind == KindSet:
		return lr.set, true
	case kind == KindHeader:
		lr.header.SessionID, lr.header.ProjectHash = *lr.sid, *lr.ph
		return Line{Kind: KindHeader, Header: lr.header}, true
	}
	return Line{Kind: KindRecord, Record: lr.record(lr.raw, 0)}, true
}

// scan reads line b into lr, reporting its kind; ok is false when b needs
// parseLine. What lr read stays there, parts of b, until lr.reset.
func (lr *lineReader) scan(b []byte) (Kind, bool) {
	if len(b) == 0 || b[0] != '{' { // led by spaces: parseLine's business
		return 0, false
	}
	end := lineSchema.ReadShapedAt(lr.shape, b, 0, lr)
	if !jsonl.Whole(b, end) {
		return 0, false
	}
	switch {
	case lr.isSet:
		return KindSet, true
	case lr.sid != nil && lr.ph != nil:
		return KindHeader, true
	}
	if !lr.readInfo() || len(lr.id) == 0 {
		return 0, false
	}
	lr.raw = b[:end]
	return KindRecord, true
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
// are parts of the line: a replay copies those it keeps (see taken), and a
// Line gets strings of its own.
type lineReader struct {
	set     Line // a $set's, when isSet (in the reader: one allocated per $set was a tenth of a replay's bytes)
	isSet   bool
	sid, ph *string
	header  Header // startTime, lastUpdated
	content []byte // raw, read once the type is known
	parts   partsInfo
	read1   bool     // parts is content's
	thought bool     // the record has thoughts (not what they say)
	part    partInfo // the part being read (see readParts)
	typ     string
	taken[[]byte]
	elem *lineReader // for the records of a $set's list
	// The keys of the lines read, while a scan runs (the index's Shape,
	// given for one line): finding and naming each key (most of them of
	// members not read) was a third of a replay.
	shape *jsonl.Shape
}

// taken is a record as a replay takes it in (see info): its strings are
// parts of the line read, or a Record's (takenOf).
type taken[S string | []byte] struct {
	id     S
	raw    []byte // the record's bytes, at start in its line
	start  int
	prompt S
	// responses and calls are the function responses' and the tool calls'
	// ids; visible is info.visible.
	responses, calls []S
	visible          bool
}

// reset drops what lr read of a line, keeping the room it made (emptied:
// what it held were parts of the line).
func (lr *lineReader) reset() {
	clear(lr.calls[:cap(lr.calls)])
	clear(lr.parts.responses[:cap(lr.parts.responses)])
	*lr = lineReader{taken: taken[[]byte]{calls: lr.calls[:0]}, parts: partsInfo{responses: lr.parts.responses[:0]}, elem: lr.elem}
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
			if r.read1 = r.readParts(r.content, true, &r.parts); !r.read1 {
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
		if recordInfoSchema.ReadAt(b, at, rr) != e || !rr.readInfo() {
			return -1
		}
		if len(rr.id) > 0 { // no id: skipped
			l.SetMsgs = append(l.SetMsgs, rr.record(b[:e], at))
		}
		return e
	})
}

// readInfo reads what lr.content says of the record (see info) now that
// its type is known; false when it needs encoding/json.
func (lr *lineReader) readInfo() bool {
	c := lr.content
	if lr.typ != "gemini" {
		lr.calls = lr.calls[:0] // only a gemini record's are its info's
	}
	switch lr.typ {
	case "user":
		switch {
		case len(c) > 0 && c[0] == '"':
			p := &lr.part
			if jsonl.Bytes(c, 0, &p.text) < 0 {
				return false
			}
			lr.parts.add(p, true)
		case len(c) > 0 && c[0] == '[' && !lr.read1:
			if !lr.readParts(c, true, &lr.parts) {
				return false
			}
		}
		if !lr.parts.context {
			lr.prompt, lr.responses, lr.visible = lr.parts.prompt, lr.parts.responses, len(lr.parts.prompt) > 0
		}
	case "gemini":
		text := len(c) > 2 && c[0] == '"' // any escape decodes to something
		if len(c) > 0 && c[0] == '[' {
			var parts partsInfo
			if !lr.readParts(c, false, &parts) {
				return false
			}
			text = parts.said
		}
		lr.visible = text || lr.thought || len(lr.calls) > 0
	}
	return true
}

// record is the Record lr read, the object at b[start:], with strings of
// its own.
func (lr *lineReader) record(b []byte, start int) Record {
	in := info{prompt: string(lr.prompt), visible: lr.visible, responses: strs(lr.responses), calls: strs(lr.calls)}
	return Record{ID: string(lr.id), Type: lr.typ, Raw: b[start:], Start: start, info: in}
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

// takenOf is r as a replay takes it in: a Record parseLine made, or one of
// a $set's list.
func takenOf(r *Record) *taken[string] {
	in := &r.info
	return &taken[string]{r.ID, r.Raw, r.Start, in.prompt, in.responses, in.calls, in.visible}
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
	prompt    []byte // the first text that is not empty
	said      bool   // a text that is not empty and not a thought
	responses [][]byte
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
		if len(pi.prompt) == 0 {
			pi.prompt = p.text
		}
	case p.response:
		pi.responses = append(pi.responses, p.responseID)
	}
}

// userInfo is the info of a user record whose parts pi took in.
func (pi *partsInfo) userInfo() info {
	if pi.context {
		return info{} // the synthetic context: not a message
	}
	return info{prompt: string(pi.prompt), visible: len(pi.prompt) > 0, responses: strs(pi.responses)}
}

// readParts reads a content list of parts into pi as a replay needs them
// (a function response's id, not its output; parts of c); false when it
// needs encoding/json (a part that is not an object or null, say).
func (lr *lineReader) readParts(c []byte, user bool, pi *partsInfo) bool {
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
		return e
	})
	*p = partInfo{}
	return jsonl.Whole(c, end)
}
