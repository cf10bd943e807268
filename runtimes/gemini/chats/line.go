package chats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// lineFields is every field of every line kind: one decoding of a line
// tells its kind and, for a record, all the store keeps about it.
type lineFields struct {
	Set         json.RawMessage `json:"$set"`
	SessionID   *string         `json:"sessionId"`
	ProjectHash *string         `json:"projectHash"`
	StartTime   string          `json:"startTime"`
	LastUpdated string          `json:"lastUpdated"`
	record
}

// ParseLine decodes one chat-file line. A field of an unexpected type is
// left zero rather than failing the line: only malformed JSON, a line that
// is not an object, and a record without an id are errors.
func ParseLine(b []byte) (Line, error) {
	l, err := parseLine(b)
	l.Record.Raw = bytes.Clone(l.Record.Raw)
	for i := range l.SetMsgs {
		l.SetMsgs[i].Raw = bytes.Clone(l.SetMsgs[i].Raw)
	}
	return l, err
}

// parseLine is ParseLine with each Raw a part of b (no copy).
func parseLine(b []byte) (Line, error) {
	lead := len(b) - len(bytes.TrimLeft(b, " \t\r"))
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return Line{}, errors.New("chat line: not a JSON object")
	}
	var lf lineFields
	if err := json.Unmarshal(b, &lf); err != nil && !isTypeError(err) {
		return Line{}, fmt.Errorf("chat line: %w", err)
	}
	switch {
	case lf.Set != nil:
		return parseSet(b, lead), nil
	case lf.SessionID != nil && lf.ProjectHash != nil:
		return Line{Kind: KindHeader, Header: Header{*lf.SessionID, *lf.ProjectHash, lf.StartTime, lf.LastUpdated}}, nil
	case lf.ID == "":
		return Line{}, errors.New("chat record without an id")
	}
	return Line{Kind: KindRecord, Record: Record{ID: lf.ID, Type: lf.Type, Raw: b, Start: lead, info: infoOf(lf.record)}}, nil
}

// parseSet decodes the $set of line b (trimmed; it began at lead); a value
// that is not an object sets nothing, a messages value that is not a list
// empties the list. Each record of a messages list keeps where it is in the
// line, so that the store can read it again from the file instead of
// holding it.
func parseSet(b []byte, lead int) Line {
	var f struct {
		Set struct {
			Header
			Messages json.RawMessage `json:"messages"`
		} `json:"$set"`
	}
	_ = json.Unmarshal(b, &f)
	l := Line{Kind: KindSet, Set: f.Set.Header}
	if f.Set.Messages == nil {
		return l
	}
	l.HasMsgs, l.SetMsgs = true, []Record{}
	d := json.NewDecoder(bytes.NewReader(b))
	if !into(d, "$set") || !into(d, "messages") {
		return l
	}
	if t, err := d.Token(); err != nil || t != json.Delim('[') {
		return l
	}
	for d.More() {
		from := int(d.InputOffset())
		var r record
		var raw json.RawMessage
		if d.Decode(&raw) != nil {
			break
		}
		to := int(d.InputOffset())
		i := bytes.IndexByte(b[from:to], '{') // past the ',' and spaces
		if i < 0 {
			continue // not an object
		}
		from += i
		if err := json.Unmarshal(raw, &r); (err == nil || isTypeError(err)) && r.ID != "" {
			l.SetMsgs = append(l.SetMsgs, Record{ID: r.ID, Type: r.Type, Raw: b[from:to], Start: lead + from, info: infoOf(r)})
		}
	}
	return l
}

// into moves d, at the start of an object, to the value of key (the first
// of that name: Gemini writes each once).
func into(d *json.Decoder, key string) bool {
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	found := false
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return false
		}
		if t == key {
			found = true
			break
		}
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return false
		}
	}
	return found
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}
