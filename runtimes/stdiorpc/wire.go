package stdiorpc

// The wire: a line classified as a request, a notification or a reply
// (loosely: no "jsonrpc" needed), params marshalled, long lines excerpted.

import (
	"encoding/json"
	"errors"
	"strconv"
)

// wireMessage is every message shape; presence decides which it is.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// decode classifies a line. "jsonrpc" is not required (Codex omits it); a
// null id counts as absent; an id must be a number or a string.
func decode(line []byte) (wireMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return wireMessage{}, errors.New("not a JSON object")
	}
	var m wireMessage
	if raw, ok := fields["id"]; ok && string(raw) != "null" {
		if c := raw[0]; c != '"' && c != '-' && (c < '0' || c > '9') {
			return m, errors.New("id is neither a number nor a string")
		}
		m.ID = raw
	}
	if raw, ok := fields["method"]; ok {
		if err := json.Unmarshal(raw, &m.Method); err != nil || m.Method == "" {
			return m, errors.New("method is not a non-empty string")
		}
		m.Params = fields["params"]
		return m, nil
	}
	result, hasResult := fields["result"]
	rawErr, hasError := fields["error"]
	switch {
	case hasError && string(rawErr) != "null":
		m.Error = &Error{}
		if err := json.Unmarshal(rawErr, m.Error); err != nil {
			return m, errors.New("error is not an error object")
		}
	case hasResult:
		m.Result = result
	default:
		return m, errors.New("neither a request, a notification nor a reply")
	}
	if m.ID == nil {
		return m, errors.New("reply without an id")
	}
	return m, nil
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return json.Marshal(params)
}

// excerpt keeps error messages short when a line is huge.
func excerpt(b []byte) string {
	const max = 120
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
