package contracttests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/sourcegraph/jsonrpc2"
	wsstream "github.com/sourcegraph/jsonrpc2/websocket"

	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/rpc"
)

// CodeNoResponse is the Code of the *rpc.Error that Call returns when no
// response arrived: the connection closed or ctx ended first. It is not a
// JSON-RPC code; the server never sends it.
const CodeNoResponse = 0

// anyMethodCodes are the errors any method may answer with, whether or not
// the document lists them for that method.
var anyMethodCodes = []int64{rpc.CodeParseError, rpc.CodeInvalidRequest, rpc.CodeMethodNotFound,
	rpc.CodeInvalidParams, rpc.CodeInternalError, rpc.CodeOverloaded, rpc.CodeNotInitialized}

// contract is openrpc.json compiled once: its validator and, per method,
// the error codes it documents.
type contract struct {
	v      *openrpc.Validator
	errors map[string][]int64
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	v, err := openrpc.NewValidator(openrpc.Document)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Methods []struct {
			Name   string `json:"name"`
			Errors []struct {
				Ref string `json:"$ref"`
			} `json:"errors"`
		} `json:"methods"`
		Components struct {
			Errors map[string]struct {
				Code int64 `json:"code"`
			} `json:"errors"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openrpc.Document, &doc); err != nil {
		return nil, err
	}
	c := &contract{v: v, errors: map[string][]int64{}}
	for _, m := range doc.Methods {
		for _, e := range m.Errors {
			name := strings.TrimPrefix(e.Ref, "#/components/errors/")
			ce, ok := doc.Components.Errors[name]
			if !ok {
				return nil, fmt.Errorf("openrpc.json: %s refers to an undefined error %s", m.Name, e.Ref)
			}
			c.errors[m.Name] = append(c.errors[m.Name], ce.Code)
		}
	}
	return c, nil
})

// checkError reports an error response the document does not allow.
func (c *contract) checkError(method string, e *rpc.Error) error {
	if e.Message == "" {
		return fmt.Errorf("%s: error %d has no message", method, e.Code)
	}
	if !slices.Contains(append(anyMethodCodes, c.errors[method]...), e.Code) {
		return fmt.Errorf("%s: error code %d is not documented for this method (%s)", method, e.Code, e.Message)
	}
	if e.Data == nil {
		return nil
	}
	data, err := json.Marshal(e.Data)
	if err != nil {
		return err
	}
	if err := c.v.ValidateError(e.Code, data); err != nil {
		return fmt.Errorf("%s: %w (%s)", method, err, e.Message)
	}
	return nil
}

// checkNotification validates a notification the server sent.
func (c *contract) checkNotification(method string, params json.RawMessage) error {
	if !strings.HasPrefix(method, rpc.EventPrefix) {
		return fmt.Errorf("server sent %s, which is not an event/ notification", method)
	}
	return c.v.ValidateNotification(method, params)
}

// violations collects what a connection received that breaks the contract.
// It is filled from the reading goroutine and reported on the test's own
// goroutine (the next Call or Await, or cleanup), where failing is allowed.
type violations struct {
	t    testing.TB
	mu   sync.Mutex
	errs []error
}

func (v *violations) add(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.errs = append(v.errs, err)
}

func (v *violations) report() {
	v.mu.Lock()
	errs := v.errs
	v.errs = nil
	v.mu.Unlock()
	for _, err := range errs {
		v.t.Errorf("contract violation: %v", err)
	}
}

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

// DialWebSocket opens a WebSocket to url with token, as a client would. It
// returns the HTTP response of a refused upgrade so callers can check its status.
func DialWebSocket(ctx context.Context, url, token string, opts ...DialOption) (*websocket.Conn, *http.Response, error) {
	cfg := dialConfig{header: http.Header{}}
	for _, o := range opts {
		o(&cfg)
	}
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

// Client is an outside client of cdevd: JSON-RPC 2.0 over a WebSocket, with
// sourcegraph/jsonrpc2 doing the framing. Every result, error and
// notification it receives is checked against openrpc.json; a violation
// fails the test that owns the client.
type Client struct {
	t        testing.TB
	contract *contract
	ws       *websocket.Conn
	conn     *jsonrpc2.Conn
	bad      *violations

	mu      sync.Mutex
	notes   []Notification
	taken   []bool        // notes already returned by Await
	arrived chan struct{} // closed and replaced whenever a note arrives
	readErr error         // why reading stopped
}

// Dial connects to url with token; the connection is closed when the test ends.
func Dial(t testing.TB, ctx context.Context, url, token string, opts ...DialOption) *Client {
	t.Helper()
	ct, err := loadContract()
	if err != nil {
		t.Fatalf("load openrpc.json: %v", err)
	}
	ws, resp, err := DialWebSocket(ctx, url, token, opts...)
	if err != nil {
		status := ""
		if resp != nil {
			resp.Body.Close()
			status = " (HTTP " + resp.Status + ")"
		}
		t.Fatalf("dial %s: %v%s", url, err, status)
	}
	c := &Client{t: t, contract: ct, ws: ws, bad: &violations{t: t}, arrived: make(chan struct{})}
	c.conn = jsonrpc2.NewConn(context.Background(), stream{wsstream.NewObjectStream(ws), c},
		jsonrpc2.HandlerWithError(c.handle), jsonrpc2.SetLogger(testLogger{t}))
	t.Cleanup(func() {
		c.Close()
		c.bad.report()
	})
	return c
}

// Connect dials and initializes.
func Connect(t testing.TB, ctx context.Context, url, token string, opts ...DialOption) (*Client, rpc.InitializeResult) {
	t.Helper()
	c := Dial(t, ctx, url, token, opts...)
	return c, c.Initialize(ctx)
}

// Initialize calls initialize and fails the test unless it succeeds.
func (c *Client) Initialize(ctx context.Context) rpc.InitializeResult {
	c.t.Helper()
	var res rpc.InitializeResult
	c.MustCall(ctx, rpc.MethodInitialize, rpc.InitializeParams{ProtocolVersion: rpc.ProtocolVersion,
		ClientInfo: &rpc.ClientInfo{Name: "contracttests", Version: "1"}}, &res)
	return res
}

// stream records why reading stopped (a close frame's code, typically)
// before jsonrpc2 turns it into a closed connection.
type stream struct {
	wsstream.ObjectStream
	c *Client
}

func (s stream) ReadObject(v any) error {
	err := s.ObjectStream.ReadObject(v)
	if err != nil {
		s.c.mu.Lock()
		if s.c.readErr == nil {
			s.c.readErr = err
		}
		s.c.mu.Unlock()
	}
	return err
}

// testLogger sends jsonrpc2's complaints to the test log instead of stderr.
type testLogger struct{ t testing.TB }

func (l testLogger) Printf(format string, args ...any) {
	defer func() { _ = recover() }() // logging after the test ended panics; the message is not worth it
	l.t.Logf(format, args...)
}

// handle receives what the server sends that is not a response: it must be
// an event notification. It runs on jsonrpc2's read loop, so it only records.
func (c *Client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if !req.Notif {
		c.bad.add(fmt.Errorf("server sent a request (%s) to the client", req.Method))
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "clients serve no methods"}
	}
	if err := c.contract.checkNotification(req.Method, params); err != nil {
		c.bad.add(fmt.Errorf("%s: %w", req.Method, err))
	} else {
		recordWire("notification", req.Method, 0, map[string]any{"method": req.Method, "params": params})
	}
	c.mu.Lock()
	c.notes = append(c.notes, Notification{Method: req.Method, Params: params})
	c.taken = append(c.taken, false)
	close(c.arrived)
	c.arrived = make(chan struct{})
	c.mu.Unlock()
	return nil, nil
}

// Call sends a request and waits for its response. A JSON-RPC error comes
// back as *rpc.Error (with Data decoded from JSON); when no response
// arrives, the *rpc.Error has Code CodeNoResponse.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, *rpc.Error) {
	defer c.bad.report()
	w, err := c.conn.DispatchCall(ctx, method, params)
	if err != nil {
		return nil, &rpc.Error{Code: CodeNoResponse, Message: "send: " + err.Error()}
	}
	var result json.RawMessage
	err = w.Wait(ctx, &result)
	var je *jsonrpc2.Error
	switch {
	case errors.As(err, &je):
		e := &rpc.Error{Code: je.Code, Message: je.Message}
		if je.Data != nil {
			_ = json.Unmarshal(*je.Data, &e.Data)
		}
		if verr := c.contract.checkError(method, e); verr != nil {
			c.bad.add(verr)
		} else {
			recordWire("request", method, 0, map[string]any{"id": 1, "method": method, "params": params})
			recordWire("error", method, e.Code, map[string]any{"id": 1, "error": e})
		}
		return nil, e
	case err != nil:
		return nil, &rpc.Error{Code: CodeNoResponse, Message: fmt.Sprintf("%s: no response: %v", method, err)}
	}
	if verr := c.contract.v.ValidateResult(method, result); verr != nil {
		c.bad.add(verr)
	} else {
		recordWire("request", method, 0, map[string]any{"id": 1, "method": method, "params": params})
		recordWire("result", method, 0, map[string]any{"id": 1, "result": result})
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
	return c.conn.Notify(ctx, method, params)
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
		case <-c.conn.DisconnectNotify():
			// Notes read before the close may not have been scanned yet.
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
		case <-c.conn.DisconnectNotify():
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

// Notifications returns every notification received so far, in order.
func (c *Client) Notifications() []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Notification(nil), c.notes...)
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

// Done is closed once the connection is closed, by either side.
func (c *Client) Done() <-chan struct{} { return c.conn.DisconnectNotify() }

// ReadError is why reading stopped (a *websocket.CloseError carries the
// server's close code); nil while the connection is open.
func (c *Client) ReadError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

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
	_ = c.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	_ = c.conn.Close() // ErrClosed when already closed
}
