package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
)

// conn is one client WebSocket: bare gorilla, no schema validation, so that
// the client's own cost stays small next to what is measured.
type conn struct {
	ws    *websocket.Conn
	next  int
	stamp *stampConn // a watcher's socket (dialed with stamped); else nil
}

// watcherReadBuffer is a watcher's read buffer: as large as the daemon's
// batched writes (64 KiB), so that a batch takes one read, not sixteen.
const watcherReadBuffer = 64 << 10

// dial connects to url. A stamped connection notes when each socket read
// returns (conn.stamp), and reads with a buffer of watcherReadBuffer.
func dial(ctx context.Context, url, token string, stamped bool) (*conn, error) {
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	d := websocket.Dialer{HandshakeTimeout: 30 * time.Second}
	var stamp *stampConn
	if stamped {
		d.ReadBufferSize = watcherReadBuffer
		d.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			stamp = &stampConn{Conn: nc}
			return stamp, nil
		}
	}
	ws, resp, err := d.DialContext(ctx, url, h)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	resp.Body.Close()
	return &conn{ws: ws, stamp: stamp}, nil
}

// stampConn is a socket that notes when each read returned: the arrival of
// the bytes it read. Only the goroutine reading the WebSocket reads it.
type stampConn struct {
	net.Conn
	last time.Time
}

func (s *stampConn) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	s.last = time.Now()
	return n, err
}

// readFrame appends the next message to buf: like ReadMessage, but into a
// buffer the caller reuses rather than a new one per frame.
func (c *conn) readFrame(buf []byte) ([]byte, error) {
	_, r, err := c.ws.NextReader()
	if err != nil {
		return buf, err
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func (c *conn) close() { _ = c.ws.Close() }

// roundTrip writes frame and reads the next frame; it returns that frame and
// the time between the two.
func (c *conn) roundTrip(frame []byte) ([]byte, time.Duration, error) {
	start := time.Now()
	if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		return nil, 0, err
	}
	_, reply, err := c.ws.ReadMessage()
	return reply, time.Since(start), err
}

// frame is a request's bytes.
func (c *conn) frame(method string, params any) []byte {
	c.next++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if err != nil {
		panic(err) // params are the bench's own values
	}
	return b
}

// call sends a request and decodes its result into out (when not nil),
// skipping notifications; it returns the reply's size and the round trip.
func (c *conn) call(method string, params, out any) (int, time.Duration, error) {
	f := c.frame(method, params)
	id := strconv.Itoa(c.next)
	start := time.Now()
	if err := c.ws.WriteMessage(websocket.TextMessage, f); err != nil {
		return 0, 0, err
	}
	for {
		_, reply, err := c.ws.ReadMessage()
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", method, err)
		}
		took := time.Since(start)
		var r struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  *rpc.Error
		}
		if err := json.Unmarshal(reply, &r); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", method, err)
		}
		if string(r.ID) != id {
			continue // a notification
		}
		if r.Error != nil {
			return 0, 0, fmt.Errorf("%s: %d %s %v", method, r.Error.Code, r.Error.Message, r.Error.Data)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				return 0, 0, fmt.Errorf("%s: %w", method, err)
			}
		}
		return len(reply), took, nil
	}
}

var initializeParams = map[string]any{"protocolVersion": "1.0", "clientInfo": map[string]string{"name": "cdevd-bench", "version": "1"}}

// connect dials cdevd and initializes the connection.
func connect(ctx context.Context, p *proc) (*conn, error) {
	return connectAs(ctx, p, false)
}

// connectAs is connect, stamped (see dial) or not.
func connectAs(ctx context.Context, p *proc, stamped bool) (*conn, error) {
	c, err := dial(ctx, p.url, p.token, stamped)
	if err != nil {
		return nil, err
	}
	if _, _, err := c.call(rpc.MethodInitialize, initializeParams, nil); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// echoConn dials the echo server, asking for replies of size bytes.
func echoConn(ctx context.Context, p *proc, size int) (*conn, error) {
	return dial(ctx, p.url+"?reply="+strconv.Itoa(size), "", false)
}

// percentile of sorted-in-place durations, p in [0,1].
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[int(p*float64(len(d)-1))]
}
