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
// other fields are what the store needs without converting it again.
type Record struct {
	ID   string
	Type string // user, gemini (others are kept but are not messages)
	Raw  json.RawMessage
	info info
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
		return parseSet(lf.Set), nil
	case lf.SessionID != nil && lf.ProjectHash != nil:
		return Line{Kind: KindHeader, Header: Header{*lf.SessionID, *lf.ProjectHash, lf.StartTime, lf.LastUpdated}}, nil
	case lf.ID == "":
		return Line{}, errors.New("chat record without an id")
	}
	// Copy: the line's bytes are only valid during the splitter's call.
	return Line{Kind: KindRecord, Record: Record{ID: lf.ID, Type: lf.Type, Raw: bytes.Clone(b), info: infoOf(lf.record)}}, nil
}

// parseSet decodes the object of a $set; a value that is not an object
// sets nothing, a messages value that is not a list empties the list.
func parseSet(set json.RawMessage) Line {
	var f struct {
		Header
		Messages json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(set, &f)
	l := Line{Kind: KindSet, Set: f.Header}
	if f.Messages == nil {
		return l
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(f.Messages, &raws)
	l.HasMsgs, l.SetMsgs = true, make([]Record, 0, len(raws))
	for _, raw := range raws {
		var r record
		if err := json.Unmarshal(raw, &r); (err == nil || isTypeError(err)) && r.ID != "" {
			l.SetMsgs = append(l.SetMsgs, Record{ID: r.ID, Type: r.Type, Raw: bytes.Clone(raw), info: infoOf(r)})
		}
	}
	return l
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}
