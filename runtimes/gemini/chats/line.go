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

// Record is one message record. Raw is the record's JSON as written; the
// other fields are what the store needs without converting it.
type Record struct {
	ID   string
	Type string // user, gemini (others are kept but are not messages)
	Raw  json.RawMessage
}

// recordHead is what every record is decoded to first.
type recordHead struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// ParseLine decodes one chat-file line. A field of an unexpected type is
// left zero rather than failing the line: only malformed JSON, a line that
// is not an object, and a record without an id are errors.
func ParseLine(b []byte) (Line, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return Line{}, errors.New("chat line: not a JSON object")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return Line{}, fmt.Errorf("chat line: %w", err)
	}
	if set, ok := top["$set"]; ok {
		return parseSet(set)
	}
	_, sid := top["sessionId"]
	_, ph := top["projectHash"]
	if sid && ph {
		var h Header
		if err := json.Unmarshal(b, &h); err != nil && !isTypeError(err) {
			return Line{}, fmt.Errorf("chat header: %w", err)
		}
		return Line{Kind: KindHeader, Header: h}, nil
	}
	r, err := parseRecord(b)
	if err != nil {
		return Line{}, err
	}
	return Line{Kind: KindRecord, Record: r}, nil
}

func parseSet(set json.RawMessage) (Line, error) {
	l := Line{Kind: KindSet}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(set, &fields); err != nil {
		return Line{}, fmt.Errorf("chat $set: %w", err)
	}
	if err := json.Unmarshal(set, &l.Set); err != nil && !isTypeError(err) {
		return Line{}, fmt.Errorf("chat $set: %w", err)
	}
	msgs, ok := fields["messages"]
	if !ok {
		return l, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(msgs, &raws); err != nil {
		if !isTypeError(err) {
			return Line{}, fmt.Errorf("chat $set messages: %w", err)
		}
		raws = nil // not a list: taken as an empty one
	}
	l.HasMsgs, l.SetMsgs = true, make([]Record, 0, len(raws))
	for _, raw := range raws {
		if r, err := parseRecord(raw); err == nil {
			l.SetMsgs = append(l.SetMsgs, r)
		}
	}
	return l, nil
}

func parseRecord(b []byte) (Record, error) {
	var h recordHead
	if err := json.Unmarshal(b, &h); err != nil && !isTypeError(err) {
		return Record{}, fmt.Errorf("chat record: %w", err)
	}
	if h.ID == "" {
		return Record{}, errors.New("chat record without an id")
	}
	// Copy: the line's bytes are only valid during the splitter's call.
	return Record{ID: h.ID, Type: h.Type, Raw: bytes.Clone(b)}, nil
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}
