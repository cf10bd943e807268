package chats

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// Kind is what a chat-file line is.
type Kind int

// Line kinds.
const (
	KindRecord Kind = iota // a message record, upserted by id
	KindHeader             // sessionId + projectHash (+ startTime, lastUpdated, kind)
	KindSet                // {"$set":{…}}: top-level fields replaced
)

// Line is one decoded chat-file line.
type Line struct {
	Kind   Kind
	Header Header // KindHeader
	// KindSet: the fields replaced. Messages is non-nil when the set
	// replaces the message list (an empty list included).
	Set     Header
	SetMsgs []Record
	HasMsgs bool
	Record  Record // KindRecord
}

// Header is the session-level fields of a header line or a $set.
type Header struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
}

// Record is one message record. Raw is the record's JSON as written, found
// at byte Start of the line; the other fields are what the store needs
// without converting it again.
type Record struct {
	ID    string
	Type  string // user, gemini (others are kept but are not messages)
	Raw   json.RawMessage
	Start int
	info  info
}

// What a replay reads of a line, each kind of object in one type: read by
// its schema (quick.go), or, where that refuses, by encoding/json into the
// same type, forgiving values of another type.
type (
	// chatLine is a line of any kind: a header's members, a $set's value
	// (read by setSchema) and a record's.
	chatLine struct {
		Set         json.RawMessage `json:"$set"`
		SessionID   *string         `json:"sessionId"`
		ProjectHash *string         `json:"projectHash"`
		StartTime   string          `json:"startTime"`
		LastUpdated string          `json:"lastUpdated"`
		recordHead
	}
	chatSet struct {
		Header
		Messages json.RawMessage `json:"messages"` // the records' new list (setRecords)
	}
	// recordHead is what a replay reads of a record: not what the thoughts
	// say, nor the tool calls but their ids.
	recordHead struct {
		ID        text            `json:"id"`
		Type      text            `json:"type"`
		Content   json.RawMessage `json:"content"`
		Thoughts  []struct{}      `json:"thoughts"`
		ToolCalls []callID        `json:"toolCalls"`
	}
	callID struct {
		ID text `json:"id"`
	}
)

// text is a string read as a part of the line when it has no escape
// (jsonl.Bytes), not copied: a string made for each was most of what a
// replay allocated. Any value but a string leaves it nil.
type text []byte

func readText(b []byte, at int, t *text) int { return jsonl.Bytes(b, at, (*[]byte)(t)) }

// UnmarshalJSON is encoding/json's reading of a text, as readText reads it.
func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if b[0] == '"' && json.Unmarshal(b, &s) == nil {
		*t = append(text{}, s...) // "" too is not nil, as jsonl.Bytes reads it
	}
	return nil
}

// readLenient reads b, an object, into v with its schema, else with
// encoding/json (forgiving type errors); false when b is not JSON of that
// shape. The schema reads into v as it is (see lineReader), encoding/json
// into a zero v.
func readLenient[T any](s *jsonl.Schema[T], sh *jsonl.Shape, b []byte, v *T) bool {
	if jsonl.Whole(b, s.ReadShapedAt(sh, b, 0, v)) {
		return true
	}
	var zero T
	*v = zero
	err := json.Unmarshal(b, v)
	return err == nil || isTypeError(err)
}

// parseLine decodes one chat-file line, each Raw a part of b (no copy). A
// field of an unexpected type is left zero rather than failing the line:
// only a line that is not an object, and a record without an id, are
// errors. (A replay does not validate what it skips: see quick.go.)
func parseLine(b []byte) (Line, error) {
	var lr lineReader
	var l Line
	err := lr.read(nil, b, func(kind Kind, h *Header, r *taken) {
		switch {
		case kind == KindHeader:
			l = Line{Kind: KindHeader, Header: *h}
		case kind == KindRecord:
			l = Line{Kind: KindRecord, Record: r.record()}
		case h != nil:
			l.Kind, l.Set = KindSet, *h
		case r == nil: // a list given
			l.HasMsgs, l.SetMsgs = true, []Record{}
		default:
			l.SetMsgs = append(l.SetMsgs, r.record())
		}
	})
	if err != nil {
		return Line{}, err
	}
	return l, nil
}

// lineReader reads lines into what a replay takes of them, keeping the
// room it made from line to line: a reader made for each line was five
// sixths of what a replay allocated.
type lineReader struct {
	line  chatLine
	set   chatSet
	elem  recordHead // a record of a $set's list
	parts []part
	taken taken
	sh    jsonl.Shape
}

// read reads line b and gives fn what it says: a header (KindHeader, h);
// a record (KindRecord, r); or a $set (KindSet): when it replaces the
// list, a nil r and each record of the list, then its header h. An error
// may come after records of a list: the line is then to be skipped whole.
// What fn is given is a part of b or of lr, until fn returns. The keys of
// the lines read are remembered in sh (nil: none).
func (lr *lineReader) read(sh *jsonl.Shape, b []byte, fn func(k Kind, h *Header, r *taken)) error {
	lead := len(b) - len(bytes.TrimLeft(b, " \t\r"))
	b = bytes.TrimSpace(b)
	l := &lr.line
	*l = chatLine{recordHead: recordHead{ToolCalls: l.ToolCalls[:0]}}
	if len(b) == 0 || b[0] != '{' || !readLenient(lineSchema, sh, b, l) {
		return errors.New("chat line: not a JSON object")
	}
	switch {
	case l.Set != nil:
		s := &lr.set
		if *s = (chatSet{}); l.Set[0] == '{' {
			readLenient(setSchema, nil, l.Set, s)
		}
		if s.Messages != nil {
			fn(KindSet, nil, nil)
			if err := lr.setRecords(b, lead, s.Messages, fn); err != nil {
				return err
			}
		}
		fn(KindSet, &s.Header, nil)
	case l.SessionID != nil && l.ProjectHash != nil:
		lr.set.Header = Header{*l.SessionID, *l.ProjectHash, l.StartTime, l.LastUpdated} // not one on the heap
		fn(KindHeader, &lr.set.Header, nil)
	case len(l.ID) == 0:
		return errors.New("chat record without an id")
	default:
		if !lr.take(&l.recordHead, b, lead) {
			return errors.New("chat line: content not JSON")
		}
		fn(KindRecord, nil, &lr.taken)
	}
	return nil
}

// setRecords gives fn each record of list, the message list of a $set in
// line b (which began at lead), with its place in the line, so that the
// store can read it again from the file instead of holding it. Elements
// that are not objects, or have no id, are skipped.
func (lr *lineReader) setRecords(b []byte, lead int, list []byte, fn func(Kind, *Header, *taken)) error {
	if list[0] != '[' {
		return nil // not a list: the list emptied
	}
	base := bytes.Index(b, list) // list is a part of b, or a copy of one
	end := jsonl.Array(list, 0, nil, func(at int) int {
		e := jsonl.ValueEnd(list, at)
		if e < 0 || list[at] != '{' {
			return e
		}
		h := &lr.elem
		*h = recordHead{ToolCalls: h.ToolCalls[:0]}
		if !readLenient(headSchema, &lr.sh, list[at:e], h) || !lr.take(h, b[base+at:base+e], lead+base+at) {
			return -1
		}
		if len(h.ID) > 0 {
			fn(KindSet, nil, &lr.taken)
		}
		return e
	})
	if !jsonl.Whole(list, end) {
		return errors.New("chat line: bad message list")
	}
	return nil
}
