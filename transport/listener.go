package transport

import (
	"net"
	"sync"
)

// limitListener admits at most a fixed number of connections at a time
// that are not WebSockets yet: probes, /metrics, upgrades in progress,
// idle keep-alives. Accept waits for a free slot, so a client over the cap
// waits in the kernel's backlog instead of being refused, and is served as
// soon as a slot frees. An upgraded connection gives its slot back (see
// limitedConn.release): WebSockets are bounded by MaxConns instead, so
// unauthenticated connections can never crowd them out, nor they them.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, free: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn holds one slot of a limitListener until it is closed or
// released.
type limitedConn struct {
	net.Conn
	once sync.Once
	free func()
}

// release gives the slot back; the connection stays open.
func (c *limitedConn) release() { c.once.Do(c.free) }

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// CloseWrite keeps net/http's graceful close (half-close, then drain) for
// the TCP connection underneath.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

// releaseSlot frees the listener slot of a connection that became a
// WebSocket (its net.Conn after the hijack).
func releaseSlot(nc net.Conn) {
	if bc, ok := nc.(*batchConn); ok {
		nc = bc.Conn
	}
	if lc, ok := nc.(*limitedConn); ok {
		lc.release()
	}
}
