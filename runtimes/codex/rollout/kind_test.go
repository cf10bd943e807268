package rollout

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
