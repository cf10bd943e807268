package chats

// One file over the size on purpose: lineOf's fast path, a hand-written
// reader of the one line shape Gemini writes, each function a step of one
// pass over the same bytes with parseLine as the way out; read apart, its
// steps lose the shape they follow. A later issue replaces the reader as a
// whole.

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// lineOf is parseLine, reading only the members a replay needs when the
// line has the shape Gemini writes: the long strings of tool output and
// answers are skipped, not decoded, which is most of a first read's cost
// (encoding/json was 90% of it). Anything unusual (a key written with
// escapes or in another case, which encoding/json would match; a member of
// an unexpected type, whose partial decoding is encoding/json's to define)
// goes to parseLine. Unlike parseLine, a line whose nested values are not
// valid JSON can be taken: Gemini does not write one, and a record that
// does not decode is left out of its page (see ToMessage).
//
// With borrow, a record's strings without escapes (id, prompt, response and
// call ids) are parts of b, not copies: for a caller that keeps none of
// them past its use of b.
func lineOf(b []byte, borrow bool) (Line, error) {
	var l Line
	if fastLine(b, borrow, &l) {
		return l, nil
	}
	return parseLine(b)
}

// lineKeys are the top-level members a replay reads.
var lineKeys = []string{"$set", "sessionId", "projectHash", "startTime", "lastUpdated", "id", "type", "content", "thoughts", "toolCalls", "messages"}

// str decodes the JSON string raw; ok is false for any other value.
func str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in), true
	}
	if s, ok := jsonl.Unquote(in); ok {
		return s, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strOf is str, its string a part of raw when borrow is set and it needs
// no decoding: a replay copies what it keeps (into index.strs), and a
// string allocated for each id and prompt was a twentieth of a first read.
func strOf(raw []byte, borrow bool) (string, bool) {
	if borrow && len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		in := raw[1 : len(raw)-1]
		if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			return unsafe.String(unsafe.SliceData(in), len(in)), true
		}
	}
	return str(raw)
}

func isNull(raw []byte) bool { return string(raw) == "null" }

// take sets *dst to v unless a member of that name was seen already: which
// of two wins, with type errors, is encoding/json's to say.
func take(dst *[]byte, v []byte) bool {
	if *dst != nil {
		return false
	}
	*dst = v
	return true
}

// setHead and setTail are the $set line Gemini writes after each turn,
// around its time: {"$set":{"lastUpdated":"…"}}.
const (
	setHead = `{"$set":{"lastUpdated":"`
	setTail = `"}}`
)

// plainString reports whether s is the content of a JSON string that
// needs no decoding: no quote, backslash or control byte, valid UTF-8.
func plainString(s []byte) bool {
	for _, c := range s {
		if c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(s)
}

// fastLine is lineOf's fast path; ok is false when the line needs parseLine.
func fastLine(b []byte, borrow bool, l *Line) bool {
	if t, ok := bytes.CutPrefix(b, []byte(setHead)); ok && bytes.HasSuffix(t, []byte(setTail)) {
		// A fifth of a chat file's lines: known by its bytes, not walked.
		ts := t[:len(t)-len(setTail)]
		if plainString(ts) {
			*l = Line{Kind: KindSet, Set: Header{LastUpdated: string(ts)}}
			return true
		}
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	lead := cap(b) - cap(t) // t is a part of b
	for _, c := range b[:lead] {
		if c != ' ' && c != '\t' && c != '\r' {
			return false // led by other spaces: parseLine's business
		}
	}
	var m members
	if !m.read(t, borrow) {
		return false
	}
	switch {
	case m.set != nil:
		return fastSet(m.set, t, lead, borrow, l)
	case m.sid != nil || m.ph != nil:
		if m.sid == nil || m.ph == nil {
			break // a record that has one of them
		}
		var h Header
		var ok [4]bool
		h.SessionID, ok[0] = str(m.sid)
		h.ProjectHash, ok[1] = str(m.ph)
		h.StartTime, ok[2] = optStr(m.start)
		h.LastUpdated, ok[3] = optStr(m.last)
		if ok != [4]bool{true, true, true, true} {
			return false
		}
		*l = Line{Kind: KindHeader, Header: h}
		return true
	}
	// Filled where it is: a line and a record, copied from call to call,
	// were a tenth of a short line's reading.
	l.Kind = KindRecord
	if !fastRecord(&m, t, borrow, &l.Record) || l.Record.ID == "" {
		*l = Line{}
		return false
	}
	l.Record.Start = lead
	return true
}

// optStr decodes a string member that may be absent.
func optStr(raw []byte) (string, bool) {
	if raw == nil {
		return "", true
	}
	return str(raw)
}

// members are the raw values of the top-level members a replay reads.
type members struct {
	set, sid, ph, start, last, id, typ, content, thoughts, calls, msgs []byte

	// What read learnt of a record's content and calls as it went over
	// them (see read): the info of a user record's parts (userRead), the
	// ids of the tool calls (callsRead).
	user      info
	callIDs   []string
	userRead  bool
	callsRead bool
}

// readContent measures, or reads where it is, the content value at obj[at]:
// a user record's parts are read as they are gone over when the type came
// first (Gemini's order). It returns where the value ends, or -1.
func (m *members) readContent(obj []byte, at int, borrow bool) int {
	if at >= len(obj) {
		return -1
	}
	if m.content == nil && string(m.typ) == `"user"` && obj[at] == '[' {
		if in, e, ok := userPartsAt(obj, at, borrow); ok {
			m.user, m.userRead = in, true
			return e
		}
	}
	n := valueLen(obj[at:])
	if n <= 0 {
		return -1
	}
	return at + n
}

// read takes obj's members; false when obj is not an object of the shape
// fastLine handles. The members Gemini begins a record with are taken by
// their bytes (see head), the others found and named one by one.
func (m *members) read(obj []byte, borrow bool) bool {
	bad := false
	put := func(k, v []byte) {
		var dst *[]byte
		switch string(k) {
		case "$set":
			dst = &m.set
		case "sessionId":
			dst = &m.sid
		case "projectHash":
			dst = &m.ph
		case "startTime":
			dst = &m.start
		case "lastUpdated":
			dst = &m.last
		case "id":
			dst = &m.id
		case "type":
			dst = &m.typ
		case "content":
			dst = &m.content
		case "thoughts":
			dst = &m.thoughts
		case "toolCalls":
			dst = &m.calls
		case "messages":
			dst = &m.msgs
		case "timestamp", "model", "tokens", "kind":
			return // other members Gemini writes on every line: not odd
		default:
			bad = bad || jsonl.Folds(k, lineKeys)
			return
		}
		bad = bad || !take(dst, v)
	}
	fn := func(k []byte, at int) int {
		if string(k) == "content" {
			e := m.readContent(obj, at, borrow)
			if e >= 0 {
				put(k, obj[at:e])
			}
			return e
		}
		if string(k) == "toolCalls" {
			e := m.readCalls(obj, at, borrow)
			if e >= 0 {
				put(k, obj[at:e])
			}
			return e
		}
		e := valueLen(obj[at:])
		if e <= 0 {
			return -1
		}
		put(k, obj[at:at+e])
		return at + e
	}
	var end int
	if i := m.head(obj, borrow); i > 0 {
		end = jsonl.ObjectFrom(obj, i, fn)
	} else {
		end = jsonl.Object(obj, skipWS(obj, 0), fn)
	}
	return end >= 0 && skipWS(obj, end) == len(obj) && !bad
}

// head takes the members Gemini begins a record with, in its order and
// spelling, {"id":…,"timestamp":…,"type":…,"content":…, then those of
// "toolCalls", "thoughts", "tokens" and "model" that follow in that order,
// comparing bytes: finding each key and naming it was a fifth of a replay.
// It returns where the last member it took ends (read goes on from there,
// so a key repeated later is still caught), or 0 when obj does not begin
// so.
func (m *members) head(obj []byte, borrow bool) int {
	const idKey = `{"id":`
	if !bytes.HasPrefix(obj, []byte(idKey)) {
		return 0
	}
	i := len(idKey)
	n := 0
	if i < len(obj) && obj[i] == '"' {
		n = stringLen(obj[i:])
	}
	if n == 0 {
		return 0
	}
	m.id, i = obj[i:i+n], i+n
	for _, k := range [...]struct {
		key string
		dst *[]byte
	}{{`,"timestamp":`, nil}, {`,"type":`, &m.typ}, {`,"content":`, &m.content}} {
		if !bytes.HasPrefix(obj[i:], []byte(k.key)) {
			return i
		}
		at := i + len(k.key)
		var e int
		if k.dst == &m.content {
			e = m.readContent(obj, at, borrow)
		} else if n := valueLen(obj[at:]); n > 0 {
			e = at + n
		}
		if e <= 0 {
			return i
		}
		if k.dst != nil {
			*k.dst = obj[at:e]
		}
		i = e
	}
	// Then a gemini record's, each taken if it comes next in Gemini's order.
	for _, k := range [...]struct {
		key string
		dst *[]byte
	}{{`,"toolCalls":`, &m.calls}, {`,"thoughts":`, &m.thoughts}, {`,"tokens":`, nil}, {`,"model":`, nil}} {
		if !bytes.HasPrefix(obj[i:], []byte(k.key)) {
			continue
		}
		at := i + len(k.key)
		e := -1
		if k.dst == &m.calls {
			e = m.readCalls(obj, at, borrow)
		} else if n := valueLen(obj[at:]); n > 0 {
			e = at + n
		}
		if e <= 0 {
			return i
		}
		if k.dst != nil {
			*k.dst = obj[at:e]
		}
		i = e
	}
	return i
}

// readCalls measures, or reads where it is, the toolCalls value at
// obj[at]: measuring the list first, then reading it, went over a call's
// arguments and result twice. It returns where the value ends, or -1.
func (m *members) readCalls(obj []byte, at int, borrow bool) int {
	if at >= len(obj) {
		return -1
	}
	if m.calls == nil && obj[at] == '[' {
		if ids, e, ok := callsAt(obj, at, borrow); ok {
			m.callIDs, m.callsRead = ids, true
			return e
		}
	}
	n := valueLen(obj[at:])
	if n <= 0 {
		return -1
	}
	return at + n
}

// fastRecord is the Record of the message record obj (Raw and Start left
// for the caller to place); ok is false when it needs encoding/json.
func fastRecord(m *members, obj []byte, borrow bool, r *Record) bool {
	id, ok := strOf(m.id, borrow)
	if !ok {
		return false
	}
	var typ string
	switch string(m.typ) { // no allocation for the types Gemini writes
	case `"user"`:
		typ = "user"
	case `"gemini"`:
		typ = "gemini"
	default:
		typ, ok = optStr(m.typ)
		if !ok && !isNull(m.typ) {
			return false
		}
	}
	r.ID, r.Type, r.Raw = id, typ, obj
	switch typ {
	case "user":
		if m.userRead {
			r.info = m.user
		} else {
			r.info, ok = userInfo(m.content, borrow)
		}
	case "gemini":
		r.info, ok = geminiInfo(m, borrow)
	}
	return ok
}

// userInfo is infoOf for a user record whose content is c.
func userInfo(c []byte, borrow bool) (info, bool) {
	switch {
	case c == nil:
		return info{}, true
	case c[0] == '"':
		s, ok := strOf(c, borrow)
		if !ok {
			return info{}, false
		}
		if s == "" {
			return info{}, true
		}
		return partsInfo([]fpart{{text: s, hasText: true}}), true
	case c[0] == '[':
		in, end, ok := userPartsAt(c, 0, borrow)
		return in, ok && end == len(c)
	}
	return info{}, true // another type: no parts
}

// fpart is what infoOf reads of a user record's part.
type fpart struct {
	text, respID       string
	hasText, hasRespID bool
}

// partsInfo is infoOf for a user record with parts.
func partsInfo(parts []fpart) info {
	var in info
	for _, p := range parts {
		switch {
		case p.hasText && strings.HasPrefix(p.text, contextPrefix):
			return info{context: true}
		case p.hasText && p.text != "":
			if in.prompt == "" {
				in.prompt = p.text
			}
			in.visible = true
		case p.hasRespID:
			in.responses = append(in.responses, p.respID)
		}
	}
	return in
}

// userPartsAt is infoOf for a user record whose content is the list of
// parts at b[at], read where it is (a function response's output, most of
// such a line, was gone over three times when measured first): the info,
// where the list ends, and false when the record needs encoding/json.
func userPartsAt(b []byte, at int, borrow bool) (info, int, bool) {
	var buf [4]fpart // most user records have one part
	parts := buf[:0]
	typeErr, bad := false, false
	end := jsonl.Array(b, at, nil, func(i int) int {
		if b[i] != '{' {
			e := valueLen(b[i:])
			if e <= 0 {
				return -1
			}
			if isNull(b[i : i+e]) {
				parts = append(parts, fpart{})
			} else {
				typeErr = true // not an object
			}
			return i + e
		}
		var p fpart
		var text, thought []byte
		resp := false
		end := jsonl.Object(b, i, func(k []byte, at int) int {
			if string(k) == "functionResponse" {
				bad = bad || resp // repeated: encoding/json's to merge
				resp = true
				e, typeOK, odd := p.response(b, at, borrow)
				typeErr = typeErr || !typeOK
				bad = bad || odd
				return e
			}
			e := valueLen(b[at:])
			if e <= 0 {
				return -1
			}
			v := b[at : at+e]
			switch string(k) {
			case "text":
				bad = bad || !take(&text, v)
			case "thought":
				bad = bad || !take(&thought, v)
			default:
				bad = bad || jsonl.Folds(k, partKeys)
			}
			return at + e
		})
		if end < 0 {
			return -1
		}
		if text != nil && !isNull(text) {
			var ok bool
			if p.text, ok = strOf(text, borrow); !ok {
				typeErr = true
			}
			p.hasText = true
		}
		if thought != nil && !isNull(thought) && string(thought) != "true" && string(thought) != "false" {
			typeErr = true
		}
		parts = append(parts, p)
		return end
	})
	if end < 0 || bad {
		return info{}, -1, false
	}
	if typeErr {
		parts = nil // encoding/json fails the whole list
	}
	return partsInfo(parts), end, true
}

// response reads the functionResponse value at b[at] into p, where it is:
// where it ends; typeOK is false when encoding/json fails the parts on its
// type, bad when the record needs encoding/json (a key written oddly or
// twice).
func (p *fpart) response(b []byte, at int, borrow bool) (end int, typeOK, bad bool) {
	if b[at] != '{' {
		n := valueLen(b[at:])
		if n <= 0 {
			return -1, false, false
		}
		return at + n, isNull(b[at : at+n]), false // null: no response
	}
	p.hasRespID = true
	var id, name []byte
	end = object(b, at, func(k, v []byte) {
		switch string(k) {
		case "id":
			bad = bad || !take(&id, v)
		case "name":
			bad = bad || !take(&name, v)
		default:
			bad = bad || jsonl.Folds(k, respKeys)
		}
	})
	if end < 0 {
		// Not an object of that shape: measured as a value, a type error.
		n := valueLen(b[at:])
		if n <= 0 {
			return -1, false, bad
		}
		return at + n, false, bad
	}
	typeOK = true
	if id != nil && !isNull(id) {
		if p.respID, typeOK = strOf(id, borrow); !typeOK {
			p.respID = ""
		}
	}
	if name != nil && !isNull(name) && name[0] != '"' {
		typeOK = false
	}
	return end, typeOK, bad
}

var (
	partKeys = []string{"text", "thought", "functionResponse"}
	respKeys = []string{"id", "name", "response"}
	callKeys = []string{"id"}
)

// geminiInfo is infoOf for a gemini record.
func geminiInfo(m *members, borrow bool) (info, bool) {
	var in info
	c, thoughts := m.content, m.thoughts
	text := false
	switch {
	case c == nil:
	case c[0] == '"':
		text = len(c) > 2 // any escape decodes to something
	case c[0] == '[':
		bad := false
		// Decoded part by part, a part of the wrong type left zero.
		ok := elementsAt(c, func(i int) int {
			if c[i] != '{' {
				return i + valueLen(c[i:]) // a part of the wrong type: no text
			}
			var t, th []byte
			end := object(c, i, func(k, v []byte) {
				switch string(k) {
				case "text":
					bad = bad || !take(&t, v)
				case "thought":
					bad = bad || !take(&th, v)
				default:
					bad = bad || jsonl.Folds(k, partKeys)
				}
			})
			if len(t) > 2 && t[0] == '"' && string(th) != "true" {
				text = true
			}
			return end
		})
		if !ok || bad {
			return info{}, false
		}
	}
	// Whether there are thoughts, not how many: an array that is not empty
	// (walking its elements to count them was a seventh of an answer's
	// line). Their values are not read here, as no other nested value is.
	thought := len(thoughts) > 0 && thoughts[0] == '[' && thoughts[skipWS(thoughts, 1)] != ']'
	in.calls = m.callIDs
	if calls := m.calls; !m.callsRead && len(calls) > 0 && calls[0] == '[' {
		var end int
		var ok bool
		if in.calls, end, ok = callsAt(calls, 0, borrow); !ok || end != len(calls) {
			return info{}, false
		}
	}
	in.visible = text || thought || len(in.calls) > 0
	return in, true
}

// callsAt reads the ids of the tool calls listed at b[at] ("" for a call
// without one): the ids, where the list ends, and false when the record
// needs encoding/json.
func callsAt(b []byte, at int, borrow bool) (ids []string, end int, ok bool) {
	bad := false
	end = jsonl.Array(b, at, nil, func(i int) int {
		var id []byte
		var end int
		if b[i] != '{' {
			n := valueLen(b[i:]) // not an object: a call without an id
			if n <= 0 {
				return -1
			}
			end = i + n
		} else {
			end = object(b, i, func(k, v []byte) {
				if string(k) == "id" {
					bad = bad || !take(&id, v)
				} else {
					bad = bad || jsonl.Folds(k, callKeys)
				}
			})
		}
		s := ""
		if id != nil && !isNull(id) {
			var ok bool
			if s, ok = strOf(id, borrow); !ok {
				bad = true
			}
		}
		ids = append(ids, s)
		return end
	})
	if end < 0 || bad {
		return nil, -1, false
	}
	return ids, end, true
}

// fastSet is the Line of a $set line t (led by lead bytes) whose value is
// set.
func fastSet(set, t []byte, lead int, borrow bool, out *Line) bool {
	var m members
	if len(set) == 0 || set[0] != '{' || !m.read(set, borrow) {
		return false
	}
	var h Header
	var ok [4]bool
	h.SessionID, ok[0] = optStr(m.sid)
	h.ProjectHash, ok[1] = optStr(m.ph)
	h.StartTime, ok[2] = optStr(m.start)
	h.LastUpdated, ok[3] = optStr(m.last)
	if ok != [4]bool{true, true, true, true} {
		return false
	}
	l := Line{Kind: KindSet, Set: h}
	if m.msgs == nil {
		*out = l
		return true
	}
	l.HasMsgs, l.SetMsgs = true, []Record{}
	if m.msgs[0] != '[' {
		*out = l
		return true
	}
	// Where the list is in t: its elements are placed by their offsets.
	base := cap(t) - cap(m.msgs)
	bad := false
	if !elements(m.msgs, func(at int, e []byte) {
		if e[0] != '{' {
			return // not an object: skipped, as parseSet does
		}
		var em members
		if !em.read(e, borrow) {
			bad = true
			return
		}
		if em.id == nil || isNull(em.id) {
			return // no id: skipped
		}
		var r Record
		if !fastRecord(&em, e, borrow, &r) {
			bad = true
			return
		}
		if r.ID != "" {
			r.Start = lead + base + at
			l.SetMsgs = append(l.SetMsgs, r)
		}
	}) || bad {
		return false
	}
	*out = l
	return true
}

// elements calls fn with the offset in arr and the bytes of each element of
// the JSON array arr; false when arr is not an array of that shape.
func elements(arr []byte, fn func(at int, e []byte)) bool {
	return elementsAt(arr, func(i int) int {
		e := valueLen(arr[i:])
		if e <= 0 {
			return -1
		}
		fn(i, arr[i:i+e])
		return i + e
	})
}

// elementsAt calls fn with the offset in arr of each element of the JSON
// array arr; fn reads the element and returns where it ends, or -1 when it
// is not of a shape the caller handles. False when arr is not an array of
// that shape.
func elementsAt(arr []byte, fn func(at int) int) bool {
	return jsonl.Whole(arr, jsonl.Array(arr, 0, nil, fn))
}

// object calls fn with the key (as written) and raw value of each member of
// the JSON object at b[i], returning where it ends, or -1 when it is not an
// object of that shape (jsonl.Object, each value measured by valueLen).
// Unlike valueLen, a scalar holding a bracket fails here; either way such a
// line is not valid JSON.
func object(b []byte, i int, fn func(k, v []byte)) int {
	return jsonl.Object(b, i, func(k []byte, at int) int {
		n := valueLen(b[at:])
		if n <= 0 {
			return -1
		}
		fn(k, b[at:at+n])
		return at + n
	})
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// valueLen is the length of the JSON value at the start of b, or 0.
func valueLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"':
		return stringLen(b)
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				n := stringLen(b[i:])
				if n == 0 {
					return 0
				}
				i += n - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return 0
	case '}', ']', ',', ':':
		return 0
	}
	for i, c := range b {
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return len(b)
}

// stringLen is the length of the JSON string at the start of b, quotes
// included, or 0 when it does not end.
func stringLen(b []byte) int {
	for i := 1; ; {
		j := jsonl.IndexQuote(b[i:])
		if j < 0 {
			return 0
		}
		q := i + j
		n := 0
		for k := q - 1; k >= 1 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}
