package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cdevd/cdevd/internal/jsonl"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
)

// request is a validated JSON-RPC request object.
type request struct {
	// id is kept as received so it is echoed exactly (strings, negative
	// and fractional numbers); nil means a notification.
	id     json.RawMessage
	method string
	params json.RawMessage
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // nil encodes as null
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpc.Error      `json:"error,omitempty"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// MaxBatch bounds the requests in one batch. Each element costs a reply
// and bookkeeping whether or not it is valid: unbounded, one 16 MiB frame
// holding 8 million tiny elements made cdevd allocate 10 GB for a 760 MB
// reply. Real clients batch a handful of requests at most.
const MaxBatch = 1000

func invalidRequest(reason string) *rpc.Error {
	return &rpc.Error{Code: rpc.CodeInvalidRequest, Message: "invalid request: " + reason}
}

// dispatch answers one text frame: a request, a notification or a batch.
// It never waits for a handler: each runs in its own goroutine.
func (c *Conn) dispatch(data []byte) {
	if !json.Valid(data) {
		c.reject(&rpc.Error{Code: rpc.CodeParseError, Message: "parse error"})
		return
	}
	elems := []json.RawMessage{data}
	isBatch := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("["))
	if isBatch {
		var ok bool
		if elems, ok = splitBatch(data, MaxBatch); !ok {
			c.reject(&rpc.Error{Code: rpc.CodeInvalidRequest,
				Message: fmt.Sprintf("invalid request: batch longer than %d requests; split it", MaxBatch),
				Data:    map[string]any{"max_batch": MaxBatch}})
			return
		}
		if len(elems) == 0 {
			c.reject(invalidRequest("empty batch"))
			return
		}
	}
	b := &batch{c: c, isBatch: isBatch, replies: make([][]byte, len(elems)), after: make([]AfterReply, len(elems)),
		ids: make([]json.RawMessage, len(elems))}
	// The extra count keeps the batch open until every element has started.
	b.pending.Store(int32(len(elems)) + 1)
	for i, raw := range elems {
		c.start(raw, b, i)
	}
	b.done()
}

// splitBatch returns the elements of data, a valid JSON array, or false if
// it holds more than max. It reads one element at a time and stops at the
// bound, so an oversized batch costs no more than max elements.
func splitBatch(data []byte, max int) ([]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the '['
		return nil, true
	}
	var elems []json.RawMessage
	for dec.More() {
		if len(elems) == max {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break // cannot happen: data is valid JSON
		}
		elems = append(elems, raw)
	}
	return elems, true
}

// start validates one request and runs it in a new goroutine; replies that
// need no handler (invalid, overloaded) are recorded at once.
func (c *Conn) start(raw json.RawMessage, b *batch, i int) {
	req, rerr := parseRequest(raw)
	if rerr == nil && !c.acquire() {
		rerr = rpc.Overloaded
		if req.id == nil {
			c.log.Debug("notification dropped: too many in flight", methodField(req.method))
		}
	}
	if rerr != nil {
		c.srv.metrics.count(req.method, rerr)
		if rerr.Code == rpc.CodeInvalidRequest || req.id != nil {
			b.put(i, req.id, encodeResponse(req.id, nil, rerr))
		}
		b.done()
		return
	}
	if !b.isBatch && c.inline(req.method) {
		// Answered here, on the reading goroutine: a cheap method that
		// never blocks costs no goroutine and no hand-off. The token is
		// given back first, as below.
		reply, after := c.call(req)
		<-c.inflight
		b.after[i] = after
		b.put(i, req.id, reply)
		b.done()
		return
	}
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		reply, after := c.call(req)
		// Release before replying: a client that waits for this reply may
		// send its next request at once, and must not find it refused.
		<-c.inflight
		b.after[i] = after
		b.put(i, req.id, reply)
		b.done()
	}()
}

// inline reports whether the handler answers method without blocking.
func (c *Conn) inline(method string) bool {
	in, ok := c.srv.h.(Inliner)
	return ok && in.Inline(c, method)
}

func (c *Conn) acquire() bool {
	select {
	case c.inflight <- struct{}{}:
		return true
	default:
		return false
	}
}

// call runs the handler for req and returns the encoded response (nil for
// a notification) and what to run once it is queued, if anything.
func (c *Conn) call(req request) (reply []byte, after AfterReply) {
	start := time.Now()
	result, rerr := c.invoke(req)
	after, _ = result.(AfterReply)
	c.srv.metrics.observe(req.method, time.Since(start))

	var raw json.RawMessage
	if enc, ok := result.(Encoded); ok {
		raw = json.RawMessage(enc)
	} else if rerr == nil {
		var err error
		if raw, err = marshal(result); err != nil {
			c.log.Error("cannot marshal result", methodField(req.method), zap.Error(err))
			rerr = &rpc.Error{Code: rpc.CodeInternalError, Message: "internal error: result not encodable"}
		}
	}
	c.srv.metrics.count(req.method, rerr)
	if req.id == nil {
		if rerr != nil {
			c.log.Debug("notification failed", methodField(req.method), zap.Error(rerr))
		}
		return nil, after
	}
	return encodeResponse(req.id, raw, rerr), after
}

// invoke calls Handle, turning a panic into an internal error so that one
// broken method cannot take down the connection or the server.
func (c *Conn) invoke(req request) (result any, rerr *rpc.Error) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("handler panicked", methodField(req.method), zap.Any("panic", v), zap.Stack("stack"))
			result, rerr = nil, &rpc.Error{Code: rpc.CodeInternalError, Message: "internal error"}
		}
	}()
	result, err := c.srv.h.Handle(c.ctx, c, req.method, req.params)
	if err != nil {
		return nil, rpc.AsError(err)
	}
	return result, nil
}

// reject answers a frame that holds no readable request (id null).
func (c *Conn) reject(rerr *rpc.Error) {
	c.srv.metrics.count("", rerr)
	c.reply(encodeResponse(nil, nil, rerr))
}

// reply sends a response; nil means there is nothing to send.
func (c *Conn) reply(msg []byte) {
	if msg != nil {
		c.sendReply(msg)
	}
}

// batch collects the replies to one frame's requests, so a batch is
// answered with one array frame once its last element is done.
type batch struct {
	c       *Conn
	isBatch bool
	replies [][]byte          // nil for notifications
	ids     []json.RawMessage // of the requests, for a reply cut for size
	after   []AfterReply      // run once the replies are queued
	pending atomic.Int32
	size    atomic.Int64 // bytes of the replies kept so far
}

// put records the reply to element i. In a batch, a reply that would take
// the batch's reply past MaxReplyBytes is dropped at once (not held until
// the batch ends) and replaced by a short error, so every request still
// gets exactly one reply and the frame stays bounded.
func (b *batch) put(i int, id json.RawMessage, reply []byte) {
	if b.isBatch && reply != nil {
		limit := b.c.srv.cfg.MaxReplyBytes
		if n := int64(len(reply)); b.size.Add(n) > limit {
			b.size.Add(-n)
			reply = encodeResponse(id, nil, &rpc.Error{Code: rpc.CodeInternalError,
				Message: fmt.Sprintf("batch reply too large (over %d bytes): send this request on its own", limit),
				Data:    map[string]any{"max_reply_bytes": limit}})
		}
	}
	b.replies[i] = reply
}

func (b *batch) done() {
	if b.pending.Add(-1) > 0 {
		return
	}
	defer func() {
		for _, a := range b.after {
			if a != nil {
				a.AfterReply()
			}
		}
	}()
	if !b.isBatch {
		b.c.reply(b.replies[0])
		return
	}
	var out []byte
	for _, r := range b.replies {
		if r == nil {
			continue
		}
		if out == nil {
			out = append(out, '[')
		} else {
			out = append(out, ',')
		}
		out = append(out, r...)
	}
	if out != nil {
		b.c.reply(append(out, ']'))
	}
}

// parseRequest validates one JSON value (valid JSON) as a request object.
// On failure it still returns the id when it could be read, for the error
// reply.
func parseRequest(raw json.RawMessage) (request, *rpc.Error) {
	// JSON text is UTF-8 (RFC 8259 §8.1). Anything echoed from an invalid
	// request (its id, its method name) would make our text frame invalid
	// too, and browsers drop a connection on such a frame (RFC 6455 §8.1).
	if !utf8.Valid(raw) {
		return request{}, invalidRequest("not valid UTF-8")
	}
	f, ok := scanMembers(raw)
	if !ok {
		// A map, not a struct: encoding/json matches struct fields
		// without regard to case, and JSON-RPC member names are
		// case-sensitive.
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
			return request{}, invalidRequest("not an object")
		}
		f = members{id: fields["id"], jsonrpc: fields["jsonrpc"], method: fields["method"], params: fields["params"]}
	}
	var req request
	if f.id != nil {
		if !validID(f.id) {
			return request{}, invalidRequest("id must be a string, a number or null")
		}
		req.id = f.id
	}
	if string(f.jsonrpc) != `"2.0"` {
		var version string
		if err := json.Unmarshal(f.jsonrpc, &version); err != nil || version != "2.0" {
			return req, invalidRequest(`jsonrpc must be "2.0"`)
		}
	}
	m := f.method
	if m == nil || m[0] != '"' {
		return req, invalidRequest("method must be a string")
	}
	if bytes.IndexByte(m, '\\') < 0 {
		req.method = string(m[1 : len(m)-1])
	} else {
		// Into a local: &req.method would move every request to the heap.
		var method string
		_ = json.Unmarshal(m, &method) // a valid JSON string
		req.method = method
	}
	if p := f.params; p != nil {
		if p[0] != '{' && p[0] != '[' {
			return req, invalidRequest("params must be an object or an array")
		}
		req.params = p
	}
	return req, nil
}

// members are the values of a request object's members; nil when absent.
type members struct{ id, jsonrpc, method, params json.RawMessage }

// envelope is the schema of a request object: its four members, each
// borrowed as written (the frame is valid JSON, checked once; parseRequest
// checks each value's type itself, as the errors it reports are its own).
// Values are slices of the frame, capped so that appending to one cannot
// write into it.
var envelope = jsonl.NewSchema(
	jsonl.BorrowedKey("id", func(m *members) *json.RawMessage { return &m.id }),
	jsonl.BorrowedKey("jsonrpc", func(m *members) *json.RawMessage { return &m.jsonrpc }),
	jsonl.BorrowedKey("method", func(m *members) *json.RawMessage { return &m.method }),
	jsonl.BorrowedKey("params", func(m *members) *json.RawMessage { return &m.params }),
)

// scanMembers reads the members of b, valid JSON, with the schema-driven
// reader of the transcript readers: decoding into a map was most of a
// cheap request's cost. It reports false for what it leaves to the map:
// anything but an object, a member of ours repeated (the map keeps the
// last), or a key the schema cannot vouch for (escaped, not ASCII, or one
// of ours in another case). The map then reads exactly what it always
// did: JSON-RPC's names are case-sensitive, and an escaped key may spell
// one of ours.
func scanMembers(b []byte) (f members, ok bool) {
	ok = envelope.Read(b, &f)
	return f, ok
}

// validID accepts a string, a number or null (values are valid JSON, so the
// first byte tells the type).
func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return string(id) == "null"
}

// Encoded is a result already encoded as compact, valid JSON: it is sent
// as it is, where any other result is encoded (and a json.RawMessage
// checked and compacted) once more. For a large result built once and
// sent many times.
type Encoded []byte

func encodeResponse(id, result json.RawMessage, rerr *rpc.Error) []byte {
	if rerr == nil && result != nil {
		// The id is as received in a valid request, the result valid
		// JSON: the encoder would only copy both, after checking them.
		msg := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(result)+len("null"))
		msg = append(msg, `{"jsonrpc":"2.0","id":`...)
		if id == nil {
			msg = append(msg, "null"...)
		}
		msg = append(append(msg, id...), `,"result":`...)
		return append(append(msg, result...), '}')
	}
	msg, err := marshal(response{JSONRPC: "2.0", ID: id, Result: result, Error: rerr})
	if err != nil {
		// Only an error's data can fail to encode: send the rest.
		msg, _ = marshal(response{JSONRPC: "2.0", ID: id, Error: &rpc.Error{Code: rerr.Code, Message: rerr.Message}})
	}
	return msg
}

// marshal is json.Marshal without HTML escaping, so ids and strings go out
// byte for byte as they came in.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
