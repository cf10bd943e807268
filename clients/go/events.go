package client

// Events: the server's notifications delivered once and in order, and the
// watched sessions whose last seq a reconnect watches again from.

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/cdevd/cdevd/rpc"
)

// Event is a server notification: an event/<type> method and its params.
type Event struct {
	Method string
	Params json.RawMessage
	Header rpc.EventHeader // zero for events outside a session (heartbeat)
}

// Type is the event type, the method without "event/".
func (e Event) Type() string { return strings.TrimPrefix(e.Method, rpc.EventPrefix) }

// Decode unmarshals the params into v, an rpc event type.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Params, v) }

// watchState is what a reconnect needs to watch a session again.
type watchState struct {
	params rpc.WatchParams
	epoch  string
	seq    int64 // the last seq delivered
}

// Events delivers the server's events in order. It is closed after Close,
// or when the connection is lost without Reconnect.
func (c *Client) Events() <-chan Event { return c.events }

// handle receives the server's notifications on the read loop. It blocks
// while Events is full: that is the backpressure the server sees.
func (c *Client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	if !req.Notif {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "a cdevd client serves no methods"}
	}
	ev := Event{Method: req.Method}
	if req.Params != nil {
		ev.Params = *req.Params
	}
	_ = json.Unmarshal(ev.Params, &ev.Header)
	if !c.fresh(ev) {
		return nil, nil // replayed again after a reconnect: delivered before
	}
	c.sendMu.RLock()
	defer c.sendMu.RUnlock()
	select {
	case <-c.quit:
		return nil, nil
	default:
	}
	select {
	case c.events <- ev:
	case <-c.quit:
	case <-c.done:
	}
	return nil, nil
}

// fresh records a watched session's event and reports whether it is new.
func (c *Client) fresh(ev Event) bool {
	h := ev.Header
	if h.SessionID == "" || h.Seq == 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.watched[h.SessionID]
	if w == nil {
		return true
	}
	if w.epoch == h.Epoch && h.Seq <= w.seq {
		return false
	}
	w.epoch, w.seq = h.Epoch, h.Seq
	return true
}

// Watch watches a session (replaying since p.SinceSeq when set) and
// remembers it, so that a reconnect watches it again from the last event
// received.
func (c *Client) Watch(ctx context.Context, p rpc.WatchParams) (rpc.WatchResult, error) {
	c.mu.Lock()
	if c.watched[p.SessionID] == nil {
		w := &watchState{params: p}
		if p.SinceSeq != nil {
			w.seq, w.epoch = *p.SinceSeq, p.Epoch
		}
		c.watched[p.SessionID] = w
	}
	c.mu.Unlock()
	var res rpc.WatchResult
	if err := c.Call(ctx, rpc.MethodWatch, p, &res); err != nil {
		c.mu.Lock()
		delete(c.watched, p.SessionID)
		c.mu.Unlock()
		return res, err
	}
	return res, nil
}

// Unwatch stops watching a session.
func (c *Client) Unwatch(ctx context.Context, p rpc.UnwatchParams) error {
	c.mu.Lock()
	delete(c.watched, p.SessionID)
	c.mu.Unlock()
	return c.Call(ctx, rpc.MethodUnwatch, p, nil)
}
