package transport

import (
	"bufio"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
)

// readStart starts the reading goroutine. It is not the one that ran the
// handshake and Open, and after the first message it hands over once more
// (see handle): a goroutine's stack does not shrink below 4 KiB once grown,
// and a connection that has initialized and then idles, the common idle
// connection, would otherwise keep a stack grown by that work.
func (c *Conn) readStart() {
	cfg := &c.srv.cfg
	c.pongWait = 2 * cfg.PingInterval
	c.ws.SetReadLimit(cfg.MaxFrameBytes)
	_ = c.extendRead()
	c.ws.SetPongHandler(func(string) error { return c.extendRead() })
	go c.read()
}

// read is the reading goroutine's loop. Only its first wait is on the
// socket: once a message has been handled on it, its stack has grown
// anyway, and the probe would be a system call per message for nothing.
func (c *Conn) read() {
	for fresh := true; c.readOne(fresh); fresh = false {
	}
}

// setInput tells the connection its read buffer and socket, so that an idle
// reader can wait on the socket itself. Without both (a connection that is
// not TCP), it waits in the library.
func (c *Conn) setInput(br *bufio.Reader, nc net.Conn) {
	if bc, ok := nc.(*batchConn); ok {
		nc = bc.Conn
	}
	if lc, ok := nc.(*limitedConn); ok {
		nc = lc.Conn
	}
	sc, ok := nc.(syscall.Conn)
	if br == nil || !ok {
		return
	}
	raw, err := sc.SyscallConn()
	// Made once: a closure made per wait would be allocated per message.
	readable := inputProbe(&c.peek)
	if err != nil || readable == nil {
		return
	}
	c.br, c.raw, c.readable = br, raw, readable
}

// readOne reads and handles one message; it reports false when this
// goroutine is to stop reading: reading failed and the connection ended, or
// a new reading goroutine carries on.
//
// Idle, it waits for input on the socket when nothing is buffered: the
// library's read path (NextReader) is deep enough that a goroutine parked
// in it uses over 1 KiB of stack, and the runtime then starts goroutines,
// and keeps them, at 4 KiB rather than 2 KiB.
func (c *Conn) readOne(fresh bool) bool {
	if fresh && c.raw != nil && c.br.Buffered() == 0 {
		// A deadline or a close ends the wait; NextReader reports it.
		_ = c.raw.Read(c.readable)
	}
	typ, r, err := c.ws.NextReader()
	return c.handle(typ, r, err)
}

// handle reads and dispatches one message; it is apart from readOne to
// keep readOne's frame, which an idle reader keeps, small.
//
//go:noinline
func (c *Conn) handle(typ int, r io.Reader, err error) bool {
	var data []byte
	if err == nil {
		data, err = c.readMessage(r)
	}
	if err != nil {
		c.readErr = err
		c.readFailed(err)
		c.end()
		return false
	}
	// Any message shows the peer alive, not only a pong: a busy client
	// that answers pings late but keeps talking must not be dropped.
	_ = c.extendRead()
	if typ != websocket.TextMessage {
		c.reject(invalidRequest("binary frames are not accepted; send JSON-RPC as text"))
	} else {
		c.dispatch(data)
	}
	// Only after the first message: a new goroutine per message would
	// grow a fresh stack each time, which costs a round trip more than
	// the memory is worth (workspace/list: 1.35x the echo's p50 → 1.6x).
	// Messages stay in order: the next reader starts once this one has
	// dispatched its message.
	if !c.handedOver {
		c.handedOver = true
		go c.read()
		return false
	}
	return true
}

// end runs once reading has failed: it waits for the closer and every
// handler, then tells the handler and the server.
func (c *Conn) end() {
	close(c.readDone)
	<-c.closerDone
	c.handlers.Wait()
	c.srv.h.Close(c)
	c.srv.metrics.connsOpen.Dec()
	c.log.Debug("connection closed")
	c.ended()
}

func (c *Conn) readFailed(err error) {
	var ne net.Error
	switch {
	case errors.Is(err, websocket.ErrReadLimit):
		// The library has already sent 1009; this records it for the log.
		c.Close(websocket.CloseMessageTooBig, "message too big")
	case errors.Is(err, errMessageTimeout):
		c.log.Info("message not completed in time")
		c.Close(websocket.ClosePolicyViolation, "message not completed in time")
	case errors.Is(err, errOverBudget):
		c.log.Warn("unfinished messages over the daemon's budget: closing a connection that needs more")
		c.Close(websocket.CloseTryAgainLater, "server busy; retry later")
	case errors.As(err, &ne) && ne.Timeout():
		c.log.Info("peer stopped answering pings")
		c.Close(websocket.CloseGoingAway, "ping timeout")
	default:
		c.Close(websocket.CloseNormalClosure, "")
	}
	c.log.Debug("read ended", zap.Error(err))
}
