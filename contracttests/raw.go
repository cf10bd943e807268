package contracttests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// RawConn is a WebSocket to cdevd with no JSON-RPC library in between, for
// what a well-behaved client never sends: malformed JSON, invalid request
// objects, batches, huge frames. It reads only when asked (Next, AwaitClose),
// so it also plays the client that stops reading. What it receives is still
// checked against openrpc.json, as Client's frames are: results of
// requests it sent, errors, and notifications.
//
// It stays below client.Client on purpose: a client that could send these
// frames, or stop reading at will, would be a broken client; the tests
// that need them speak WebSocket directly.
type RawConn struct {
	ws     *websocket.Conn
	bad    *violations
	frames *frames

	mu      sync.Mutex
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
	r := &RawConn{ws: ws, bad: &violations{t: t}}
	r.frames = newFrames(ct, r.bad, false)
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

// Send writes one text frame as is.
func (r *RawConn) Send(frame []byte) error {
	r.frames.onSent(frame)
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
		if replies, _ := r.frames.onReceived(f); replies {
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
		_, got := r.frames.onReceived(f)
		notes = append(notes, got...)
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
