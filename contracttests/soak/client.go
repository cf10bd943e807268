package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
)

// conn is a bare JSON-RPC client over one WebSocket: a reading goroutine
// hands replies to their callers and notifications to onNote. The soak
// checks what it studies (seq continuity), not the schema: with a thousand
// connections, validating every event would load the machine more than
// cdevd does.
type conn struct {
	ws     *websocket.Conn
	onNote func(method string, h rpc.EventHeader)

	wmu sync.Mutex // one writer at a time

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	err     error // why reading stopped
	done    chan struct{}
}

type reply struct {
	Result json.RawMessage
	Error  *rpc.Error
}

func dial(ctx context.Context, url, token string, onNote func(string, rpc.EventHeader)) (*conn, error) {
	ws, resp, err := websocket.DefaultDialer.DialContext(ctx, url, http.Header{"Authorization": {"Bearer " + token}})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	c := &conn{ws: ws, onNote: onNote, pending: map[int64]chan reply{}, done: make(chan struct{})}
	go c.read()
	if err := c.call(ctx, rpc.MethodInitialize, rpc.InitializeParams{ProtocolVersion: rpc.ProtocolVersion,
		ClientInfo: &rpc.ClientInfo{Name: "soak", Version: "1"}}, nil); err != nil {
		c.close(leaveSilent)
		return nil, err
	}
	return c, nil
}

func (c *conn) read() {
	defer close(c.done)
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.mu.Lock()
			c.err = err
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		var m struct {
			ID     *int64          `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *rpc.Error      `json:"error"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			continue
		}
		if m.Method != "" {
			var h rpc.EventHeader
			_ = json.Unmarshal(m.Params, &h)
			if c.onNote != nil {
				c.onNote(m.Method, h)
			}
			continue
		}
		if m.ID == nil {
			continue
		}
		c.mu.Lock()
		ch, ok := c.pending[*m.ID]
		delete(c.pending, *m.ID)
		c.mu.Unlock()
		if ok {
			ch <- reply{Result: m.Result, Error: m.Error}
		}
	}
}

// call sends a request and waits for its reply.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return fmt.Errorf("%s: connection closed: %w", method, c.err)
	}
	c.nextID++
	id := c.nextID
	ch := make(chan reply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	c.wmu.Lock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(30 * time.Second))
	err = c.ws.WriteMessage(websocket.TextMessage, frame)
	c.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed: %w", method, c.readErr())
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %d %s", method, r.Error.Code, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *conn) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// closeCode is the close code the server sent, or 0.
func (c *conn) closeCode() int {
	var ce *websocket.CloseError
	if errors.As(c.readErr(), &ce) {
		return ce.Code
	}
	return 0
}

// leave is how a client goes away.
type leave int

const (
	leaveClose    leave = iota // a close frame, then the socket
	leaveSilent                // FIN without a close frame
	leaveReset                 // RST
	leaveMidFrame              // half a frame written, then FIN
	leaveKinds
)

// close ends the connection as how says and waits for its reader.
func (c *conn) close(how leave) {
	nc := c.ws.UnderlyingConn()
	c.wmu.Lock()
	switch how {
	case leaveClose:
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	case leaveReset:
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
	case leaveMidFrame:
		hdr := []byte{0x81, 0x80 | 126, 0, 0, 1, 2, 3, 4}
		binary.BigEndian.PutUint16(hdr[2:], 300)
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = nc.Write(append(hdr, `{"jsonrpc":"2.0","id":`+strconv.Itoa(1)...))
	}
	c.wmu.Unlock()
	_ = nc.Close()
	<-c.done
}
