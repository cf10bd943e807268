package rollout

import "fmt"

// ParseLine decodes one rollout line with encoding/json, as the schemas
// are held to: a field of an unexpected type is left zero, only malformed
// JSON is an error.
func ParseLine(b []byte) (Line, error) {
	var l Line
	if _, err := decode(b, &l); err != nil {
		return Line{}, fmt.Errorf("parse rollout line: %w", err)
	}
	return l, nil
}

// kind names a line by its type and its payload's type, e.g.
// "response_item/function_call", and its item's for an item_completed: how
// the golden files label a line.
func (l Line) kind() string {
	k := l.Type + "/" + l.Payload.Type
	if l.Type == "event_msg" && l.Payload.Type == "item_completed" && l.Payload.Item != nil {
		k += "/" + l.Payload.Item.Type
	}
	return k
}
