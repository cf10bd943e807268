package transport

import (
	"errors"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"time"
)

// unbudgetedBytes of each message are held without drawing on the
// Server's budget: requests are small, and most then never touch the
// shared counter. What this leaves outside the budget is bounded by
// MaxConns (16 MiB at the defaults).
const unbudgetedBytes = 4 << 10

var (
	errMessageTimeout = errors.New("message not completed in time")
	errOverBudget     = errors.New("unfinished messages over the daemon's budget")
)

// byteBudget bounds the bytes that all connections together hold.
type byteBudget struct {
	max  int64
	held atomic.Int64
}

// take draws n bytes, or reports false if they would exceed the bound.
// What succeeding takers hold never does: a taker that overshoots gives
// its bytes back at once.
func (b *byteBudget) take(n int64) bool {
	if b.held.Add(n) > b.max {
		b.held.Add(-n)
		return false
	}
	return true
}

func (b *byteBudget) give(n int64) { b.held.Add(-n) }

// The reading goroutine keeps two deadlines, and it alone uses them:
// readDeadline, the socket's, which the peer's pongs and messages move
// on; and msgDeadline, that of the message being received (zero between
// messages), which nothing moves. The socket's is never past the
// message's.

// beginMessage starts the deadline of a message whose first frame has
// just been read.
func (c *Conn) beginMessage() {
	c.msgDeadline = time.Now().Add(c.srv.cfg.MessageTimeout)
	if c.msgDeadline.Before(c.readDeadline) {
		c.readDeadline = c.msgDeadline
		_ = c.ws.SetReadDeadline(c.msgDeadline)
	}
}

// extendRead moves the read deadline pongWait ahead (the peer showed it
// is alive), but not past the deadline of a message being received.
func (c *Conn) extendRead() error {
	d := time.Now().Add(c.pongWait)
	if !c.msgDeadline.IsZero() && c.msgDeadline.Before(d) {
		d = c.msgDeadline
	}
	c.readDeadline = d
	return c.ws.SetReadDeadline(d)
}

// readMessage reads the rest of message r, as io.ReadAll would, by the
// message's deadline, and draws on the Server's budget for what it holds
// past unbudgetedBytes until the message is complete.
func (c *Conn) readMessage(r io.Reader) ([]byte, error) {
	c.beginMessage()
	var charged int64
	defer func() {
		c.msgDeadline = time.Time{}
		if charged > 0 {
			c.srv.unfinished.give(charged)
		}
	}()
	b := make([]byte, 0, 512)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, c.messageError(err)
		}
		if len(b) < cap(b) {
			continue
		}
		// Double, but not past the read limit: the library refuses a
		// message longer than that before reading it.
		size := max(min(2*cap(b), int(c.srv.cfg.MaxFrameBytes)), len(b)+1)
		if more := int64(size) - unbudgetedBytes - charged; more > 0 {
			if !c.srv.unfinished.take(more) {
				return nil, errOverBudget
			}
			charged += more
		}
		b = slices.Grow(b, size-len(b))
	}
}

// messageError names a timeout that the message's deadline caused.
func (c *Conn) messageError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && !c.msgDeadline.After(c.readDeadline) {
		return errMessageTimeout
	}
	return err
}
