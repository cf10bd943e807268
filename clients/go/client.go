// Package client is a Go client for cdevd: JSON-RPC 2.0 over a WebSocket,
// with the types of package rpc. Its folder is named for its language,
// beside the TypeScript client (clients/ts); import it as
//
//	client "github.com/cdevd/cdevd/clients/go"
//
// Dial connects with the token, sends initialize and waits for its reply,
// as the protocol asks. Calls are typed and concurrent (their replies may
// come in any order); a JSON-RPC error is returned as *rpc.Error. Events
// arrive on Events, in order. With Config.Reconnect, a lost connection is
// dialled again and every watched session is watched again since the last
// event received, so that the events continue with no duplicate and no
// gap; when the server can no longer replay that far, Config.OnGap says
// which session to reload with messages.
//
// A few hooks serve tools and tests as much as apps: Config.Dialer (a
// proxy, TLS, socket options), Config.OnFrame (every frame, raw, for
// logging or checking a server against openrpc.json), Config.NoInitialize
// (to test what a server does before initialize) and Notify.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/cdevd/cdevd/rpc"
)

// Config says where and how to connect.
type Config struct {
	URL   string // ws://127.0.0.1:16180/ws, as `cdevd serve` prints it
	Token string // `cdevd token`
	// Subprotocol presents the token as the cdevd.bearer.<token> WebSocket
	// subprotocol (what browsers must do) instead of an Authorization header.
	Subprotocol bool
	Header      http.Header    // more upgrade headers (Origin, …)
	ClientInfo  rpc.ClientInfo // default {Name: "cdevd-go", Version: "1"}
	// Reconnect dials again when the connection is lost (not after Close),
	// with backoff up to a second, until Close.
	Reconnect bool
	// HeartbeatTimeout: a connection that receives nothing for this long
	// is taken as lost (the server sends a heartbeat at least every 30 s).
	// Default 75 s.
	HeartbeatTimeout time.Duration
	// EventBuffer is the capacity of Events (default 1024). A client that
	// stops reading Events stops reading the socket too, and the server
	// then cuts it off (close code 1013); with Reconnect it recovers.
	EventBuffer int
	// OnGap is called when a watched session's events could not be
	// replayed after a reconnect: reload its messages.
	OnGap func(sessionID string)
	// OnReconnect is called after each reconnection attempt (err nil: it
	// succeeded and every watch is restored).
	OnReconnect func(err error)

	// Dialer opens the WebSocket: a proxy, TLS settings, a NetDialContext
	// with socket options. Default websocket.DefaultDialer. Its
	// Subprotocols are replaced when Subprotocol is set.
	Dialer *websocket.Dialer
	// OnFrame, when set, sees every JSON-RPC frame as it goes on or comes
	// off the wire, raw: for logging, recording, or validating a server.
	// Frames of each direction come in wire order. A received frame is
	// passed on the read loop before it is handled, so an event is seen
	// before the response the server sent after it; OnFrame must return
	// quickly (it holds up reading) and must not call the client. frame
	// is not reused by the client: OnFrame may keep it.
	OnFrame func(dir Direction, frame []byte)
	// NoInitialize makes Dial return without sending initialize: the
	// caller sends it with Call (Initialized stays zero), or tests what
	// the server does without it. It cannot be combined with Reconnect,
	// which must initialize each new connection.
	NoInitialize bool
}

// Direction is the way a frame went, for Config.OnFrame.
type Direction int

const (
	Sent     Direction = iota + 1 // client to server
	Received                      // server to client
)

func (d Direction) String() string {
	switch d {
	case Sent:
		return "sent"
	case Received:
		return "received"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// ErrClosed is returned by calls on a client that was closed, or whose
// connection was lost and not (yet) restored.
var ErrClosed = errors.New("cdevd client: connection closed")

// Client is a connection to cdevd. Its methods are safe for concurrent use.
type Client struct {
	cfg    Config
	events chan Event
	done   chan struct{} // closed by Close
	once   sync.Once
	wg     sync.WaitGroup
	// quit is closed when the client stops; events is closed after it,
	// under sendMu, so that no handler sends on a closed channel (a
	// handler may still run after the connection reports its end).
	quit   chan struct{}
	sendMu sync.RWMutex

	mu      sync.Mutex
	conn    *jsonrpc2.Conn
	ws      *websocket.Conn
	init    rpc.InitializeResult
	last    time.Time              // when anything last arrived
	watched map[string]*watchState // by session id
	err     error                  // why the client stopped
	stream  *stream                // the current connection's

	beforeRestore func() // tests hold a reconnection here
}

// Dial connects, initializes and returns the client. The error says why a
// connection was refused (the HTTP status of a refused upgrade: a wrong
// token is 401) or why initialize failed.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.ClientInfo.Name == "" {
		cfg.ClientInfo = rpc.ClientInfo{Name: "cdevd-go", Version: "1"}
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = 75 * time.Second
	}
	if cfg.EventBuffer <= 0 {
		cfg.EventBuffer = 1024
	}
	if cfg.NoInitialize && cfg.Reconnect {
		return nil, errors.New("cdevd client: NoInitialize and Reconnect cannot be combined")
	}
	c := &Client{cfg: cfg, events: make(chan Event, cfg.EventBuffer), done: make(chan struct{}),
		quit: make(chan struct{}), watched: map[string]*watchState{}}
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	c.wg.Add(1)
	go c.supervise()
	return c, nil
}

// refusal is what a refused upgrade's body says, after ": " (cdevd's say
// what to do: where the token is, that the endpoint is /ws), or else, for
// a URL whose path is not /ws, that cdevd's endpoint is.
func refusal(rawURL string, body []byte) string {
	said, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	if strings.HasPrefix(said, "<") { // a page, such as the console's
		said = ""
	}
	if u, err := url.Parse(rawURL); err == nil && u.Path != "/ws" && !strings.Contains(said, "/ws") {
		if said != "" {
			said += "; "
		}
		said += "cdevd's WebSocket endpoint is /ws: dial " + u.Scheme + "://" + u.Host + "/ws"
	}
	if said == "" {
		return ""
	}
	return ": " + said
}

// connect dials and initializes one connection.
func (c *Client) connect(ctx context.Context) error {
	d := *websocket.DefaultDialer
	if c.cfg.Dialer != nil {
		d = *c.cfg.Dialer
	}
	h := http.Header{}
	for k, vs := range c.cfg.Header {
		h[k] = append([]string(nil), vs...)
	}
	if c.cfg.Subprotocol {
		d.Subprotocols = []string{"cdevd", "cdevd.bearer." + c.cfg.Token}
	} else if c.cfg.Token != "" {
		h.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	ws, resp, err := d.DialContext(ctx, c.cfg.URL, h)
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			resp.Body.Close()
			return fmt.Errorf("cdevd client: dial %s: refused with HTTP %s%s", c.cfg.URL, resp.Status, refusal(c.cfg.URL, body))
		}
		return fmt.Errorf("cdevd client: dial %s: %w", c.cfg.URL, err)
	}
	// jsonrpc2 would log to stderr what the client reports as errors
	// already (a read error ends the connection: Err says why).
	st := &stream{ws: ws, c: c}
	conn := jsonrpc2.NewConn(context.Background(), st, jsonrpc2.HandlerWithError(c.handle),
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	c.mu.Lock()
	c.conn, c.ws, c.stream, c.last = conn, ws, st, time.Now()
	c.mu.Unlock()
	if c.cfg.NoInitialize {
		return nil
	}
	var res rpc.InitializeResult
	err = c.call(ctx, conn, rpc.MethodInitialize, rpc.InitializeParams{ProtocolVersion: rpc.ProtocolVersion,
		ClientInfo: &c.cfg.ClientInfo}, &res)
	if err != nil {
		_ = conn.Close()
		return fmt.Errorf("cdevd client: initialize: %w", err)
	}
	c.mu.Lock()
	c.init = res
	c.mu.Unlock()
	return nil
}

// Initialized is the result of the last initialize: the server's
// capabilities and its runtime registry.
func (c *Client) Initialized() rpc.InitializeResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.init
}

// Err is why the client stopped: nil while it runs, or after Close. After
// a lost connection it wraps ErrClosed and the reason: a server's close
// frame is a *websocket.CloseError (1001 when cdevd shuts down, 1013 when
// it cut off a client too slow to read its events).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Call sends a request and decodes its result into result (unless nil). A
// JSON-RPC error is an *rpc.Error; a lost connection is ErrClosed.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	return c.call(ctx, conn, method, params, result)
}

func (c *Client) call(ctx context.Context, conn *jsonrpc2.Conn, method string, params, result any) error {
	var raw json.RawMessage
	err := conn.Call(ctx, method, params, &raw)
	var je *jsonrpc2.Error
	switch {
	case errors.As(err, &je):
		e := &rpc.Error{Code: je.Code, Message: je.Message}
		if je.Data != nil {
			_ = json.Unmarshal(*je.Data, &e.Data)
		}
		return e
	case errors.Is(err, jsonrpc2.ErrClosed):
		return fmt.Errorf("%s: %w", method, ErrClosed)
	case err != nil:
		return fmt.Errorf("%s: %w", method, err)
	}
	if result != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
	}
	return nil
}

// Notify sends a notification: a method with no reply (initialized is
// one; cdevd answers none of the others).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	err := conn.Notify(ctx, method, params)
	if errors.Is(err, jsonrpc2.ErrClosed) {
		err = ErrClosed
	}
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

func (c *Client) stop(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

// Close closes the connection with a normal close frame and stops the
// client; Events is closed once every goroutine has ended.
func (c *Client) Close() error {
	c.once.Do(func() {
		close(c.done)
		c.mu.Lock()
		ws, conn := c.ws, c.conn
		c.mu.Unlock()
		_ = ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		_ = conn.Close()
	})
	c.wg.Wait()
	return nil
}
