package transport

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/rpc"
)

// closeGrace is how long a closing connection waits for the peer to answer
// its close frame, so the peer reads that frame (and its code) before the
// TCP connection goes away.
const closeGrace = time.Second

// maxCloseText is the room for text in a close frame (125 bytes minus the code).
const maxCloseText = 123

const heartbeatMethod = rpc.EventPrefix + rpc.EventHeartbeat

// Log fields, declared once so every line uses the same keys.
func connField(id string) zap.Field       { return zap.String("conn", id) }
func methodField(method string) zap.Field { return zap.String("method", method) }

// Conn is one client connection. Its methods are safe for concurrent use.
type Conn struct {
	id        string
	principal auth.Principal // who it belongs to; holds no secret
	srv       *Server
	ws        *websocket.Conn
	// log is lazy: an eager With encodes the field into a buffer of its
	// own (about 1 KiB), which every idle connection would keep.
	log *zap.Logger

	ctx    context.Context
	cancel context.CancelFunc
	send   *outbox
	// inflight holds a token per running request; a full channel means
	// the connection is at MaxInflight.
	inflight chan struct{}
	optOut   atomic.Pointer[map[string]bool]

	closeOnce sync.Once
	closeMsg  []byte // the close frame's payload; written once, before ctx is cancelled

	// wmu is held while a data frame is written, so the close frame never
	// cuts into one.
	wmu sync.Mutex
	// Keepalives are timers, not a goroutine: an idle connection has only
	// its reading goroutine.
	timerMu   sync.Mutex
	ping      *time.Timer
	heartbeat *time.Timer
	hbSeq     atomic.Int64

	pongWait time.Duration // how long the peer may stay silent; set before reading starts
	// The reading goroutine's deadlines (see message.go).
	readDeadline, msgDeadline time.Time
	// br is the WebSocket's read buffer and raw its socket, when known
	// (setInput): an idle reader waits for input on raw, not in the
	// library (see readOne).
	br       *bufio.Reader
	raw      syscall.RawConn
	readable func(fd uintptr) bool
	peek     [1]byte
	// handedOver is set once the first message's reader has handed over
	// to a new one; only the reading goroutine uses it.
	handedOver bool
	ended      func()         // run last, once the connection has ended
	handlers   sync.WaitGroup // running Handle calls and batches
	readErr    error          // why reading ended; set before readDone is closed
	readDone   chan struct{}
	closerDone chan struct{} // closed once the socket is closed
}

func newConn(s *Server, ws *websocket.Conn) *Conn {
	id := rand.Text()
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		id:         id,
		srv:        s,
		ws:         ws,
		log:        s.log.WithLazy(connField(id)),
		ctx:        ctx,
		cancel:     cancel,
		send:       newOutbox(s.cfg.SendQueue),
		inflight:   make(chan struct{}, s.cfg.MaxInflight),
		readDone:   make(chan struct{}),
		closerDone: make(chan struct{}),
	}
	if ws != nil {
		c.send.start = c.drain
	}
	return c
}

// ID is random and unique per connection.
func (c *Conn) ID() string { return c.id }

// setPrincipal records who the connection belongs to, before it serves;
// its log lines name the device.
func (c *Conn) setPrincipal(p auth.Principal) {
	c.principal = p
	c.log = c.srv.log.WithLazy(connField(c.id), zap.String("device", p.DeviceID))
}

// Principal is who the connection belongs to (the owner, or a paired
// device, and its scope).
func (c *Conn) Principal() auth.Principal { return c.principal }

// Context is cancelled when the connection ends (or starts closing).
func (c *Conn) Context() context.Context { return c.ctx }

// Done is closed when the connection ends (or starts closing).
func (c *Conn) Done() <-chan struct{} { return c.ctx.Done() }

// Notify marshals a notification and queues it. It never blocks; it
// reports false when the notification cannot be sent: the connection is
// closed, or its queue overflowed and it is now being closed with 1013.
// A method the client opted out of is dropped and reports true.
func (c *Conn) Notify(method string, params any) bool {
	if c.optedOut(method) {
		return true
	}
	msg, err := marshal(notification{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		c.log.Error("notification not sent: cannot marshal params", methodField(method), zap.Error(err))
		return false
	}
	return c.notify(msg)
}

// SendEvent queues an already-marshaled notification, which may be shared
// with other connections: it is never modified. Like Notify, it never
// blocks and honours the client's opt-outs.
func (c *Conn) SendEvent(method string, msg []byte) bool {
	if c.optedOut(method) {
		return true
	}
	return c.notify(msg)
}

// SendEventWait queues an already-marshaled notification like SendEvent,
// but waits while the queue is full instead of cutting the client off: for
// a replay, which may be longer than the queue and is paced by the client.
// It returns an error once the connection closes or ctx ends.
func (c *Conn) SendEventWait(ctx context.Context, method string, msg []byte) error {
	if c.optedOut(method) {
		return nil
	}
	if c.ctx.Err() == nil && c.send.pushWait(ctx, c.ctx.Done(), msg) {
		c.srv.metrics.notifications.Inc()
		return nil
	}
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	return ctx.Err()
}

// ErrClosed is returned by SendEventWait once the connection is closing.
var ErrClosed = errors.New("transport: connection closed")

// AfterReply is implemented by a result whose handler has more to send once
// its reply is on its way: the transport calls AfterReply right after
// queueing the reply (or the batch holding it), so whatever it then sends
// reaches the client after the reply.
type AfterReply interface {
	AfterReply()
}

// SetOptOut replaces the notification methods this client does not want
// (initialize's optOutNotificationMethods).
func (c *Conn) SetOptOut(methods []string) {
	set := make(map[string]bool, len(methods))
	for _, m := range methods {
		set[m] = true
	}
	c.optOut.Store(&set)
}

// Close sends a close frame with code and text, then closes the
// connection. Only the first call has an effect.
func (c *Conn) Close(code int, text string) { c.close(code, text) }

// close reports whether this call was the one that closed c.
func (c *Conn) close(code int, text string) bool {
	closed := false
	c.closeOnce.Do(func() {
		closed = true
		c.closeMsg = websocket.FormatCloseMessage(code, rpc.TruncateUTF8(text, maxCloseText))
		c.cancel()
		c.log.Debug("connection closing", zap.Int("code", code), zap.String("text", text))
	})
	return closed
}

func (c *Conn) optedOut(method string) bool {
	set := c.optOut.Load()
	return set != nil && (*set)[method]
}

func (c *Conn) notify(msg []byte) bool {
	if !c.enqueue(msg) {
		return false
	}
	c.srv.metrics.notifications.Inc()
	return true
}

// enqueue never blocks: a client too slow to drain its queue is cut off
// rather than allowed to hold up whoever is sending (a session's fan-out).
func (c *Conn) enqueue(msg []byte) bool {
	if c.ctx.Err() != nil {
		return false
	}
	if c.send.push(msg) {
		return true
	}
	if c.close(websocket.CloseTryAgainLater, "slow client; reconnect with since_seq") {
		c.srv.metrics.slowClients.Inc()
		c.log.Warn("send queue full: disconnecting slow client")
	}
	return false
}

// serve starts the connection: the keepalives, the closer, Handler.Open,
// and the reading goroutine. ended runs once the connection has ended and
// Handler.Close has returned.
func (c *Conn) serve(ended func()) {
	m := c.srv.metrics
	m.connsOpen.Inc()
	m.connsTotal.Inc()
	c.ended = ended
	c.log.Debug("connection opened")

	// The closer runs only once the connection starts closing: no
	// goroutine waits for that meanwhile.
	context.AfterFunc(c.ctx, c.closeSocket)
	c.startTimers()
	c.srv.h.Open(c)
	c.readStart()
}

// maxBatchBytes bounds what the writer takes from the queue for one write:
// enough for a burst of small events, little enough that a connection's
// batch buffer (pooled, only held while writing) stays small.
const maxBatchBytes = 64 << 10

// drain is the writer goroutine, started when something is queued and
// nobody writes: it writes until the queue is empty, then ends. What is
// queued when it looks goes out in one write, not a write per frame: with
// many watchers, a burst of events otherwise costs a syscall per event per
// watcher, which was most of the daemon's time in the fan-out profile.
// Once the connection closes, queued messages are dropped: the client
// recovers session events with since_seq.
func (c *Conn) drain() {
	defer c.send.writers.Done()
	bp := batchLists.Get().(*[][]byte)
	defer func() {
		if cap(*bp) <= maxPooledBatch {
			batchLists.Put(bp)
		}
	}()
	for {
		var ok bool
		*bp, ok = c.send.nextBatch((*bp)[:0], maxBatchBytes)
		if !ok {
			return
		}
		c.writeFrames(*bp)
		clear(*bp) // the frames are shared event frames; do not pin them
	}
}

// batchLists lends writers the list of frames they take from the queue: a
// writer goroutine lives for one burst, and growing a fresh list each time
// was a tenth of the writers' time in the fan-out profile. A list longer
// than maxPooledBatch (a batch of many tiny frames) is not kept.
var batchLists = sync.Pool{New: func() any { l := make([][]byte, 0, 64); return &l }}

const maxPooledBatch = 1024

// writeFrame writes one data frame; its caller holds the outbox's claim.
func (c *Conn) writeFrame(msg []byte) { c.writeFrames([][]byte{msg}) }

// writeFrames writes data frames, one per message, in order, with one write
// to the socket when the connection batches (see batchConn); its caller
// holds the outbox's claim.
func (c *Conn) writeFrames(msgs [][]byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.ctx.Err() != nil {
		return
	}
	var err error
	if bc, _ := c.ws.NetConn().(*batchConn); bc != nil {
		err = bc.writeText(c.log, msgs, time.Now().Add(c.srv.cfg.WriteTimeout))
	} else {
		_ = c.ws.SetWriteDeadline(time.Now().Add(c.srv.cfg.WriteTimeout))
		for _, msg := range msgs {
			if err = c.ws.WriteMessage(websocket.TextMessage, validUTF8(c.log, msg)); err != nil {
				break
			}
		}
	}
	if err != nil {
		c.log.Debug("write failed", zap.Error(err))
		c.Close(websocket.CloseGoingAway, "write failed")
	}
}

// sendReply queues msg, or writes it on this goroutine when nothing is queued
// and nobody writes: a reply then costs no hand-off to a writer goroutine,
// and still cannot overtake (or cut into) anything queued before it.
func (c *Conn) sendReply(msg []byte) {
	if c.ctx.Err() == nil && c.send.claim() {
		c.writeFrame(msg)
		c.send.unclaim()
		return
	}
	c.enqueue(msg)
}

// startTimers arms the keepalives.
func (c *Conn) startTimers() {
	cfg := &c.srv.cfg
	c.timerMu.Lock()
	defer c.timerMu.Unlock()
	if c.ctx.Err() != nil {
		return // closed before it started (Shutdown); stopTimers may have run
	}
	c.ping = time.AfterFunc(cfg.PingInterval, c.sendPing)
	c.heartbeat = time.AfterFunc(cfg.HeartbeatInterval, c.sendHeartbeat)
}

// rearm restarts t unless the connection is closing (stopTimers ran or
// will run, under the same lock, so a timer never outlives it).
// The timer is read under the lock too: with a short interval it can fire
// before startTimers has stored it.
func (c *Conn) rearm(t **time.Timer, d time.Duration) {
	c.timerMu.Lock()
	defer c.timerMu.Unlock()
	if c.ctx.Err() == nil {
		(*t).Reset(d)
	}
}

func (c *Conn) stopTimers() {
	c.timerMu.Lock()
	defer c.timerMu.Unlock()
	if c.ping != nil {
		c.ping.Stop()
		c.heartbeat.Stop()
	}
}

func (c *Conn) sendPing() {
	cfg := &c.srv.cfg
	// WriteControl may be called concurrently with a data frame's write.
	if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(cfg.WriteTimeout)); err != nil {
		c.log.Debug("ping failed", zap.Error(err))
		c.Close(websocket.CloseGoingAway, "write failed")
		return
	}
	c.rearm(&c.ping, cfg.PingInterval)
}

func (c *Conn) sendHeartbeat() {
	now := time.Now()
	c.Notify(heartbeatMethod, rpc.HeartbeatEvent{
		ServerTime:    rpc.FormatTime(now),
		Sequence:      c.hbSeq.Add(1),
		UptimeSeconds: int64(now.Sub(c.srv.started).Seconds()),
	})
	c.rearm(&c.heartbeat, c.srv.cfg.HeartbeatInterval)
}

// closeSocket runs once the connection starts closing: it stops the
// keepalives and the writer, sends the close frame after any data frame
// being written, and closes the socket.
func (c *Conn) closeSocket() {
	defer close(c.closerDone)
	c.stopTimers()
	c.send.close()
	// A direct writer's frame ends first; none follows, as ctx has ended.
	c.wmu.Lock()
	// Writing the close frame fails when the peer is gone (nobody to wait
	// for) or when one was already sent: the peer closed first, or the
	// read limit was hit.
	err := c.ws.WriteControl(websocket.CloseMessage, c.closeMsg, time.Now().Add(c.srv.cfg.WriteTimeout))
	c.wmu.Unlock()
	if err == nil || errors.Is(err, websocket.ErrCloseSent) {
		c.awaitPeerClose()
	}
	_ = c.ws.Close()
}

// validUTF8 returns msg, repaired if it is not valid UTF-8. Requests with
// invalid UTF-8 are refused, but results and events also carry bytes from
// elsewhere (a CLI's output passed through as raw JSON), and one invalid
// text frame makes a browser drop the connection (RFC 6455 §8.1). In valid
// JSON, bytes over 0x7f occur only inside strings, so replacing them with
// U+FFFD keeps the JSON valid.
func validUTF8(log *zap.Logger, msg []byte) []byte {
	if utf8.Valid(msg) {
		return msg
	}
	log.Warn("outgoing frame had invalid UTF-8; replaced with U+FFFD", zap.Int("bytes", len(msg)))
	return bytes.ToValidUTF8(msg, []byte("\uFFFD"))
}

// awaitPeerClose gives the peer closeGrace to read the close frame and
// answer it. Closing a TCP connection that still holds unread input sends a
// reset, which can destroy the close frame before the peer reads it; so
// when reading stopped in the middle of a message (over the limit, past
// its deadline, over the budget), what the peer still sends is discarded
// in the meantime.
func (c *Conn) awaitPeerClose() {
	deadline := time.Now().Add(closeGrace)
	grace := time.NewTimer(closeGrace)
	defer grace.Stop()
	select {
	case <-c.readDone:
	case <-grace.C:
		return
	}
	if errors.Is(c.readErr, websocket.ErrReadLimit) || errors.Is(c.readErr, errMessageTimeout) || errors.Is(c.readErr, errOverBudget) {
		nc := c.ws.NetConn()
		_ = nc.SetReadDeadline(deadline)
		_, _ = io.Copy(io.Discard, nc)
	}
}
