package transport

import (
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"
)

// limitListener admits at most a fixed number of connections at a time
// that are not WebSockets yet: probes, /metrics, the console, upgrades in
// progress, idle keep-alives. An upgraded connection gives its slot back
// (StateHijacked): WebSockets are bounded by MaxConns instead.
//
// Whoever can reach the port can take slots without a token, so a slot is
// never kept from a newcomer by a connection that is doing nothing: when a
// connection arrives and every slot is taken, the oldest idle keep-alive
// (least recently used) is closed to make room; failing that, the oldest connection that has not
// yet sent a whole request (a silent one, or one still sending its
// headers). Only when every slot is serving a request does the newcomer
// wait, and those are bounded in time (ReadTimeout, ResponseTimeout) and
// in number for requests without a token (see Server.admitRequest).
//
// Server.trackConn tells the listener each connection's state.
type limitListener struct {
	net.Listener
	max int

	mu    sync.Mutex
	conns map[*limitedConn]struct{} // those holding a slot
	// freed is closed, and replaced, when a slot frees or a connection
	// becomes one that may be closed to make room: a newcomer waiting for
	// either looks again.
	freed     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{
		Listener: ln,
		max:      n,
		conns:    make(map[*limitedConn]struct{}, n),
		freed:    make(chan struct{}),
		done:     make(chan struct{}),
	}
}

// Accept takes the next connection from the socket, then a slot for it.
// It looks at the connection before it has a slot, so that it closes an
// idle one only for a newcomer that is really there; while it waits for
// a slot, later newcomers wait in the kernel's backlog.
func (l *limitListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c := &limitedConn{Conn: nc, l: l, state: http.StateNew, since: time.Now()}
	if err := l.admit(c); err != nil {
		_ = nc.Close()
		return nil, err
	}
	return c, nil
}

func (l *limitListener) admit(c *limitedConn) error {
	for {
		l.mu.Lock()
		if len(l.conns) < l.max {
			l.conns[c] = struct{}{}
			l.mu.Unlock()
			return nil
		}
		victim, freed := l.evictable(), l.freed
		l.mu.Unlock()
		if victim != nil {
			_ = victim.Close() // frees its slot before returning
			continue
		}
		select {
		case <-freed:
		case <-l.done:
			return net.ErrClosed
		}
	}
}

// evictable returns the connection to close for a newcomer: the oldest
// idle keep-alive, else the oldest that has not sent its first request's
// headers yet; nil when every one is serving a request. Called with mu
// held.
func (l *limitListener) evictable() *limitedConn {
	var idle, waiting *limitedConn
	for c := range l.conns {
		switch {
		case c.state == http.StateIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		case c.state == http.StateNew:
			if waiting == nil || c.since.Before(waiting.since) {
				waiting = c
			}
		}
	}
	if idle != nil {
		return idle
	}
	return waiting
}

// wake tells waiting newcomers to look again. Called with mu held.
func (l *limitListener) wake() {
	close(l.freed)
	l.freed = make(chan struct{})
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn holds one slot of a limitListener until it is closed or
// upgraded.
type limitedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
	// Guarded by l.mu.
	state http.ConnState // as net/http last reported it (see trackConn)
	// since is when the connection was accepted or last began a request:
	// "oldest" means least recently used. It is not moved when a
	// response ends, because net/http reports StateIdle only after the
	// client may already have read that response and opened its next
	// connection; the start of a request comes before its response, so
	// this order is the one the client saw.
	since time.Time
}

// release gives the slot back; the connection stays open.
func (c *limitedConn) release() {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.wake()
		c.l.mu.Unlock()
	})
}

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

// setState records what net/http reports of the connection (its
// http.Server.ConnState hook).
func (c *limitedConn) setState(st http.ConnState) {
	if st == http.StateHijacked || st == http.StateClosed {
		c.release()
		return
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.state = st
	if st == http.StateActive {
		c.since = time.Now()
	}
	if st == http.StateIdle {
		c.l.wake()
	}
}

// trackConn is the http.Server's ConnState hook. net/http reports
// StateActive once a request's headers are read, so a connection still
// sending them is StateNew (its first request) or StateIdle (a later one).
func trackConn(nc net.Conn, st http.ConnState) {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	if c, ok := nc.(*limitedConn); ok {
		c.setState(st)
	}
}
