package client

// The connection's supervisor: the heartbeat timeout, a lost connection
// dialled again, and the watches restored since the last event received.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/cdevd/cdevd/rpc"
)

// supervise watches the connection: the heartbeat timeout, a lost
// connection (reconnecting when configured), and Close.
func (c *Client) supervise() {
	defer c.wg.Done()
	defer func() {
		close(c.quit)
		c.sendMu.Lock()
		close(c.events)
		c.sendMu.Unlock()
	}()
	for {
		c.mu.Lock()
		conn := c.conn
		c.mu.Unlock()
		lost, why := c.watchConn(conn)
		if !lost {
			return // closed
		}
		if !c.cfg.Reconnect {
			c.stop(fmt.Errorf("%w: the connection was lost: %w", ErrClosed, why))
			return
		}
		if !c.reconnect() {
			return
		}
	}
}

// watchConn waits until conn is lost (true, and why) or the client is
// closed.
func (c *Client) watchConn(conn *jsonrpc2.Conn) (bool, error) {
	tick := time.NewTicker(c.cfg.HeartbeatTimeout / 4)
	defer tick.Stop()
	for {
		select {
		case <-c.done:
			return false, nil
		case <-conn.DisconnectNotify():
			c.mu.Lock()
			st := c.stream
			c.mu.Unlock()
			if err := st.err(); err != nil {
				return true, err
			}
			return true, errors.New("the connection closed")
		case <-tick.C:
			c.mu.Lock()
			silent := time.Since(c.last) > c.cfg.HeartbeatTimeout
			c.mu.Unlock()
			if silent {
				_ = conn.Close()
				return true, fmt.Errorf("nothing received for %s (heartbeat timeout)", c.cfg.HeartbeatTimeout)
			}
		}
	}
}

// reconnect dials until it succeeds and every watch is restored, or the
// client is closed (false).
func (c *Client) reconnect() bool {
	backoff := 50 * time.Millisecond
	for {
		err := c.restore()
		if c.cfg.OnReconnect != nil {
			c.cfg.OnReconnect(err)
		}
		if err == nil {
			return true
		}
		t := time.NewTimer(backoff)
		select {
		case <-c.done:
			t.Stop()
			return false
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// restore connects again and watches every watched session since its last
// event.
func (c *Client) restore() error {
	c.mu.Lock()
	hold := c.beforeRestore
	c.mu.Unlock()
	if hold != nil {
		hold()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := c.connect(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	var todo []rpc.WatchParams
	for _, w := range c.watched {
		p := w.params
		seq := w.seq
		p.SinceSeq, p.Epoch = &seq, w.epoch
		todo = append(todo, p)
	}
	conn := c.conn
	c.mu.Unlock()
	for _, p := range todo {
		var res rpc.WatchResult
		if err := c.call(ctx, conn, rpc.MethodWatch, p, &res); err != nil {
			_ = conn.Close()
			return err
		}
		if res.Gap {
			c.mu.Lock()
			if w := c.watched[p.SessionID]; w != nil {
				w.epoch, w.seq = res.Epoch, res.LastSeq
			}
			c.mu.Unlock()
			if c.cfg.OnGap != nil {
				c.cfg.OnGap(p.SessionID)
			}
		}
	}
	return nil
}
