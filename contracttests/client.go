package contracttests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gorilla/websocket"

	client "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/rpc"
)

// CodeNoResponse is the Code of the *rpc.Error that Call returns when no
// response arrived: the connection closed or ctx ended first. It is not a
// JSON-RPC code; the server never sends it.
const CodeNoResponse = 0

// DialOption changes how Dial and DialRaw connect.
type DialOption func(*dialConfig)

type dialConfig struct {
	header      http.Header
	subprotocol bool
	rcvbuf      int
}

// WithSubprotocolToken presents the token as a "cdevd.bearer.<token>"
// WebSocket subprotocol, as browsers must, instead of an Authorization header.
func WithSubprotocolToken() DialOption { return func(c *dialConfig) { c.subprotocol = true } }

// WithHeader adds request headers to the upgrade (Origin, Host, ...).
func WithHeader(h http.Header) DialOption {
	return func(c *dialConfig) {
		for k, vs := range h {
			for _, v := range vs {
				c.header.Add(k, v)
			}
		}
	}
}

// WithReceiveBuffer sets the socket's receive buffer (SO_RCVBUF) before it
// connects, so that a client that stops reading fills up quickly: the
// kernel otherwise buffers megabytes for it.
func WithReceiveBuffer(bytes int) DialOption { return func(c *dialConfig) { c.rcvbuf = bytes } }

func dialOptions(opts []DialOption) dialConfig {
	cfg := dialConfig{header: http.Header{}}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// dialer is the WebSocket dialer the options ask for.
func (cfg dialConfig) dialer() *websocket.Dialer {
	d := *websocket.DefaultDialer
	if cfg.rcvbuf > 0 {
		nd := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			if err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, cfg.rcvbuf)
			}); err != nil {
				return err
			}
			return serr
		}}
		d.NetDialContext = nd.DialContext
	}
	return &d
}

// DialWebSocket opens a WebSocket to url with token, as a client would. It
// returns the HTTP response of a refused upgrade so callers can check its status.
func DialWebSocket(ctx context.Context, url, token string, opts ...DialOption) (*websocket.Conn, *http.Response, error) {
	cfg := dialOptions(opts)
	d := cfg.dialer()
	if cfg.subprotocol {
		d.Subprotocols = []string{"cdevd", "cdevd.bearer." + token}
	} else if token != "" {
		cfg.header.Set("Authorization", "Bearer "+token)
	}
	return d.DialContext(ctx, url, cfg.header)
}

// Notification is a server notification: an event/<type> method and its params.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Type is the event type: the method without "event/".
func (n Notification) Type() string { return strings.TrimPrefix(n.Method, rpc.EventPrefix) }

// Header decodes the fields every session event carries.
func (n Notification) Header() rpc.EventHeader {
	var h rpc.EventHeader
	_ = json.Unmarshal(n.Params, &h) // validated against the schema on arrival
	return h
}

// Seq is the event's seq (0 for events outside a session).
func (n Notification) Seq() int64 { return n.Header().Seq }

// Field returns one top-level param, decoded (nil when absent).
func (n Notification) Field(name string) any {
	var m map[string]any
	_ = json.Unmarshal(n.Params, &m)
	return m[name]
}

// Decode unmarshals the params into v (an rpc event type).
func (n Notification) Decode(v any) error { return json.Unmarshal(n.Params, v) }

func (n Notification) String() string { return n.Method + " " + string(n.Params) }

// Event matches notifications of type typ for a session ("" matches any session).
func Event(typ, sessionID string) func(Notification) bool {
	return func(n Notification) bool {
		return n.Type() == typ && (sessionID == "" || n.Header().SessionID == sessionID)
	}
}

// Client is an outside client of cdevd for tests: the public client.Client
// (the one client apps use), plus what tests need around it. Every frame
// it sends and receives is checked against openrpc.json through
// client.Config.OnFrame, and what passes is recorded in the wire corpus; a
// violation fails the test that owns the client. The events are read from
// client.Client.Events and kept, so that a test can Await them in any
// order or look at all of them.
type Client struct {
	t      testing.TB
	c      *client.Client
	bad    *violations
	frames *frames
	done   chan struct{} // closed when Events is closed and every event is kept

	mu      sync.Mutex
	notes   []Notification
	taken   []bool        // notes already returned by Await
	arrived chan struct{} // closed and replaced whenever a note is kept
	// pending counts the notifications read off the wire and not kept
	// yet. OnFrame counts them on the read loop, before the response the
	// server sent after them is delivered, so that once a Call returns a
	// look at the notes (Notifications, Until) waits for those events.
	pending int
}

// Dial connects to url with token, without initialize (call Initialize,
// or test what the server does before it); the connection is closed when
// the test ends.
func Dial(t testing.TB, ctx context.Context, url, token string, opts ...DialOption) *Client {
	t.Helper()
	return dial(t, ctx, url, token, true, opts)
}

// Connect dials and initializes.
func Connect(t testing.TB, ctx context.Context, url, token string, opts ...DialOption) (*Client, rpc.InitializeResult) {
	t.Helper()
	c := dial(t, ctx, url, token, false, opts)
	return c, c.c.Initialized()
}

func dial(t testing.TB, ctx context.Context, url, token string, noInit bool, opts []DialOption) *Client {
	t.Helper()
	ct, err := loadContract()
	if err != nil {
		t.Fatalf("load openrpc.json: %v", err)
	}
	dc := dialOptions(opts)
	c := &Client{t: t, bad: &violations{t: t}, done: make(chan struct{}), arrived: make(chan struct{})}
	c.frames = newFrames(ct, c.bad, true)
	cc, err := client.Dial(ctx, client.Config{URL: url, Token: token, Subprotocol: dc.subprotocol, Header: dc.header,
		Dialer: dc.dialer(), ClientInfo: rpc.ClientInfo{Name: "contracttests", Version: "1"},
		NoInitialize: noInit, OnFrame: c.onFrame})
	if err != nil {
		c.bad.report()
		t.Fatalf("%v", err)
	}
	c.c = cc
	go c.keep()
	t.Cleanup(func() {
		c.Close()
		c.bad.report()
	})
	return c
}

// onFrame checks each frame on the client's read (or write) path.
func (c *Client) onFrame(dir client.Direction, frame []byte) {
	if dir == client.Sent {
		c.frames.onSent(frame)
		return
	}
	// A notification the check finds is one jsonrpc2 (under client.Client)
	// delivers to Events, unless it is not JSON-RPC 2.0 at all: that is a
	// violation that fails the test anyway.
	if _, notes := c.frames.onReceived(frame); len(notes) > 0 {
		c.mu.Lock()
		c.pending += len(notes)
		c.mu.Unlock()
	}
}

// keep reads the client's events until it stops.
func (c *Client) keep() {
	defer close(c.done)
	for ev := range c.c.Events() {
		c.mu.Lock()
		c.notes = append(c.notes, Notification{Method: ev.Method, Params: ev.Params})
		c.taken = append(c.taken, false)
		c.pending--
		close(c.arrived)
		c.arrived = make(chan struct{})
		c.mu.Unlock()
	}
}

// Initialize calls initialize and fails the test unless it succeeds.
func (c *Client) Initialize(ctx context.Context) rpc.InitializeResult {
	c.t.Helper()
	var res rpc.InitializeResult
	c.MustCall(ctx, rpc.MethodInitialize, rpc.InitializeParams{ProtocolVersion: rpc.ProtocolVersion,
		ClientInfo: &rpc.ClientInfo{Name: "contracttests", Version: "1"}}, &res)
	return res
}

// Call sends a request and waits for its response. A JSON-RPC error comes
// back as *rpc.Error (with Data decoded from JSON); when no response
// arrives, the *rpc.Error has Code CodeNoResponse.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, *rpc.Error) {
	defer c.bad.report()
	var result json.RawMessage
	err := c.c.Call(ctx, method, params, &result)
	var re *rpc.Error
	switch {
	case errors.As(err, &re):
		return nil, re
	case err != nil:
		return nil, &rpc.Error{Code: CodeNoResponse, Message: fmt.Sprintf("%s: no response: %v", method, err)}
	}
	return result, nil
}

// MustCall calls method and decodes the result into out (unless out is
// nil); any error fails the test at once.
func (c *Client) MustCall(ctx context.Context, method string, params, out any) {
	c.t.Helper()
	res, rerr := c.Call(ctx, method, params)
	if rerr != nil {
		c.t.Fatalf("%s: %v", method, rerr)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			c.t.Fatalf("%s: decode result %s: %v", method, res, err)
		}
	}
}

// Notify sends a notification (no response expected).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.c.Notify(ctx, method, params)
}

// Await returns the first notification received (or to be received before
// ctx ends) that matches and was not returned by an earlier Await. It fails
// when ctx ends or the connection closes without one.
func (c *Client) Await(ctx context.Context, match func(Notification) bool) (Notification, error) {
	defer c.bad.report()
	for {
		c.mu.Lock()
		arrived := c.arrived
		c.mu.Unlock()
		if n, ok := c.take(match); ok {
			return n, nil
		}
		select {
		case <-arrived:
		case <-c.done:
			// Notes kept before the end may not have been scanned yet.
			if n, ok := c.take(match); ok {
				return n, nil
			}
			return Notification{}, fmt.Errorf("connection closed while waiting: %v", c.ReadError())
		case <-ctx.Done():
			return Notification{}, fmt.Errorf("waiting for a notification: %w (received: %s)", ctx.Err(), c.summary())
		}
	}
}

// take marks and returns the first match not taken yet.
func (c *Client) take(match func(Notification) bool) (Notification, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, n := range c.notes {
		if !c.taken[i] && match(n) {
			c.taken[i] = true
			return n, true
		}
	}
	return Notification{}, false
}

// Until waits until cond holds for everything received so far (whether or
// not Await returned it), failing when ctx ends or the connection closes
// first.
func (c *Client) Until(ctx context.Context, cond func([]Notification) bool) error {
	defer c.bad.report()
	for {
		c.mu.Lock()
		ok, arrived := cond(c.notes), c.arrived
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-arrived:
		case <-c.done:
			if cond(c.Notifications()) {
				return nil
			}
			return fmt.Errorf("connection closed while waiting: %v", c.ReadError())
		case <-ctx.Done():
			return fmt.Errorf("waiting for a condition: %w (received: %s)", ctx.Err(), c.summary())
		}
	}
}

// summary lists the methods received so far, for failure messages.
func (c *Client) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	types := make([]string, len(c.notes))
	for i, n := range c.notes {
		types[i] = n.Type()
	}
	return "[" + strings.Join(types, " ") + "]"
}

// Notifications returns every notification received so far, in order:
// those read off the wire are kept first.
func (c *Client) Notifications() []Notification {
	for {
		c.mu.Lock()
		if c.pending <= 0 {
			notes := append([]Notification(nil), c.notes...)
			c.mu.Unlock()
			return notes
		}
		arrived := c.arrived
		c.mu.Unlock()
		select {
		case <-arrived:
		case <-c.done:
			c.mu.Lock()
			defer c.mu.Unlock()
			return append([]Notification(nil), c.notes...)
		}
	}
}

// SessionEvents returns the events received so far for one session, in order.
func (c *Client) SessionEvents(sessionID string) []Notification {
	var out []Notification
	for _, n := range c.Notifications() {
		if n.Header().SessionID == sessionID {
			out = append(out, n)
		}
	}
	return out
}

// Done is closed once the connection is closed, by either side, and every
// event received is kept.
func (c *Client) Done() <-chan struct{} { return c.done }

// ReadError is why the connection ended (a *websocket.CloseError carries
// the server's close code); nil while it is open or after Close.
func (c *Client) ReadError() error { return c.c.Err() }

// CloseCode is the code of the close frame the server sent, or 0.
func (c *Client) CloseCode() int {
	var ce *websocket.CloseError
	if errors.As(c.ReadError(), &ce) {
		return ce.Code
	}
	return 0
}

// Close says goodbye with a normal close frame and closes the connection;
// safe to call more than once.
func (c *Client) Close() {
	_ = c.c.Close()
	<-c.done
}
