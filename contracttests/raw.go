package contracttests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
)

// RawConn is a WebSocket to cdevd with no JSON-RPC library in between, for
// what a well-behaved client never sends: malformed JSON, invalid request
// objects, batches, huge frames. It reads only when asked (Next, AwaitClose),
// so it also plays the client that stops reading. What it receives is still
// checked against openrpc.json: results of requests it sent, errors, and
// notifications.
type RawConn struct {
	contract *contract
	ws       *websocket.Conn
	bad      *violations

	mu      sync.Mutex
	methods map[string]string // request id, as compact JSON → method
	readErr error
}

// DialRaw connects to url with token; the connection is closed when the test ends.
func DialRaw(t testing.TB, ctx context.Context, url, token string, opts ...DialOption) *RawConn {
	t.Helper()
	ct, err := loadContract()
	if err != nil {
		t.Fatalf("load openrpc.json: %v", err)
	}
	ws, resp, err := DialWebSocket(ctx, url, token, opts...)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		t.Fatalf("dial %s: %v", url, err)
	}
	r := &RawConn{contract: ct, ws: ws, bad: &violations{t: t}, methods: map[string]string{}}
	t.Cleanup(func() {
		r.Close()
		r.bad.report()
	})
	return r
}

// read returns the next frame, or the error that ended reading (which then
// sticks: a WebSocket cannot be read after a failed read).
func (r *RawConn) read(ctx context.Context) ([]byte, error) {
	if err := r.ReadError(); err != nil {
		return nil, err
	}
	deadline, _ := ctx.Deadline() // zero: no deadline
	_ = r.ws.SetReadDeadline(deadline)
	_, data, err := r.ws.ReadMessage()
	if err != nil {
		r.mu.Lock()
		r.readErr = err
		r.mu.Unlock()
		return nil, err
	}
	return data, nil
}

// check validates a received frame and reports whether it holds replies.
func (r *RawConn) check(data []byte) bool {
	var elems []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		if err := json.Unmarshal(data, &elems); err != nil || len(elems) == 0 {
			r.bad.add(fmt.Errorf("server sent a malformed batch: %s", data))
			return true
		}
	} else {
		elems = []json.RawMessage{data}
	}
	replies := false
	for _, e := range elems {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
			Result  json.RawMessage `json:"result"`
			Error   *rpc.Error      `json:"error"`
		}
		if err := json.Unmarshal(e, &m); err != nil || m.JSONRPC != "2.0" {
			r.bad.add(fmt.Errorf("server sent something that is not JSON-RPC 2.0: %s", e))
			continue
		}
		if m.Method != "" {
			if err := r.contract.checkNotification(m.Method, m.Params); err != nil {
				r.bad.add(fmt.Errorf("%s: %w", m.Method, err))
			}
			continue
		}
		replies = true
		if m.ID == nil {
			r.bad.add(fmt.Errorf("a response has no id: %s", e))
			continue
		}
		method := r.method(m.ID)
		switch {
		case m.Error != nil && m.Result != nil:
			r.bad.add(fmt.Errorf("a response has both result and error: %s", e))
		case m.Error != nil:
			var err error
			if method != "" {
				err = r.contract.checkError(method, m.Error)
			} else if m.Error.Message == "" {
				err = fmt.Errorf("error %d has no message", m.Error.Code)
			}
			if err != nil {
				r.bad.add(err)
			}
		case m.Result == nil:
			r.bad.add(fmt.Errorf("a response has neither result nor error: %s", e))
		case method != "":
			if err := r.contract.v.ValidateResult(method, m.Result); err != nil {
				r.bad.add(err)
			}
		}
	}
	return replies
}

func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

func (r *RawConn) method(id json.RawMessage) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.methods[idKey(id)]
}

// remember records the methods of the requests in a frame, so that their
// results can be validated.
func (r *RawConn) remember(frame []byte) {
	var elems []json.RawMessage
	if json.Unmarshal(frame, &elems) != nil {
		elems = []json.RawMessage{frame}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range elems {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(e, &m) == nil && m.ID != nil && m.Method != "" {
			r.methods[idKey(m.ID)] = m.Method
		}
	}
}

// Send writes one text frame as is.
func (r *RawConn) Send(frame []byte) error {
	r.remember(frame)
	return r.ws.WriteMessage(websocket.TextMessage, frame)
}

// SendBinary writes one binary frame.
func (r *RawConn) SendBinary(frame []byte) error {
	return r.ws.WriteMessage(websocket.BinaryMessage, frame)
}

// Next returns the next frame holding responses (a response or a batch of
// them), checking and skipping notifications; it waits until ctx's deadline.
func (r *RawConn) Next(ctx context.Context) (json.RawMessage, error) {
	defer r.bad.report()
	for {
		f, err := r.read(ctx)
		if err != nil {
			return nil, fmt.Errorf("waiting for a reply: %w", err)
		}
		if r.check(f) {
			return f, nil
		}
	}
}

// Drain reads frames until the server closes the connection (or
// ctx's deadline passes), checking them, and returns the notifications
// among them and the close frame's code (websocket.CloseAbnormalClosure when
// the connection ended without one).
func (r *RawConn) Drain(ctx context.Context) ([]Notification, int, error) {
	defer r.bad.report()
	var notes []Notification
	for {
		f, err := r.read(ctx)
		var ce *websocket.CloseError
		var ne net.Error
		switch {
		case errors.As(err, &ce):
			return notes, ce.Code, nil
		case ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
			return notes, 0, fmt.Errorf("waiting for the server to close: %w", err)
		case err != nil:
			return notes, websocket.CloseAbnormalClosure, nil
		}
		r.check(f)
		var n struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(f, &n) == nil && n.Method != "" {
			notes = append(notes, Notification{Method: n.Method, Params: n.Params})
		}
	}
}

// AwaitClose discards what arrives until the server closes the connection
// and returns the close frame's code.
func (r *RawConn) AwaitClose(ctx context.Context) (int, error) {
	_, code, err := r.Drain(ctx)
	return code, err
}

// ReadError is why reading stopped; nil while the connection is open.
func (r *RawConn) ReadError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readErr
}

// Close closes the connection; safe to call more than once.
func (r *RawConn) Close() {
	_ = r.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	_ = r.ws.Close()
}
