package transport

import (
	"bufio"
	"encoding/binary"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
)

// batchConn is the socket under a WebSocket, able to gather what is written
// between begin and flush into one write. Every write goes through mu, so a
// frame the library writes on another goroutine meanwhile (a pong, a close
// frame) goes out whole and in its place: inside the batch if written
// during it, never before frames batched ahead of it.
//
// Data frames do not go through the library: writeText frames them itself,
// straight into the batch. Through the library each frame cost a pooled
// buffer (boxed in an interface: an allocation), a copy, its lock and a
// deadline, which were most of the writer's time in the fan-out profile
// after batching. The library then writes only control frames, each with
// one Write, which lets batchConn see a close frame go out (closeSent).
type batchConn struct {
	net.Conn
	mu        sync.Mutex
	buf       *[]byte   // non-nil between begin and flush
	deadline  time.Time // for the batch being gathered
	applied   time.Time // the socket's write deadline
	closeSent bool      // the library wrote a close frame: no data frame may follow
}

// batchBufs lends batch buffers: a connection holds one only while writing.
var batchBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// closeFrameStart is the first byte of an unfragmented close frame.
const closeFrameStart = 0x80 | websocket.CloseMessage

func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) > 0 && p[0] == closeFrameStart {
		b.closeSent = true
	}
	if b.buf != nil {
		*b.buf = append(*b.buf, p...)
		return len(p), nil
	}
	return b.Conn.Write(p)
}

// SetWriteDeadline applies at once outside a batch; within one, the last
// deadline set applies to the batch's write.
func (b *batchConn) SetWriteDeadline(t time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf != nil {
		b.deadline = t
		return nil
	}
	b.applied = t
	return b.Conn.SetWriteDeadline(t)
}

// applyDeadline sets the socket's write deadline to d, unless the one it
// has is not after d and short of it by at most an eighth of the time left:
// a write then gets between 7/8 and all of its timeout. Moving the deadline
// resets a timer in the poller, which cost as much as a tenth of a write
// when done for every batch in the fan-out profile. Called with mu held.
func (b *batchConn) applyDeadline(d time.Time) error {
	if !b.applied.After(d) && d.Sub(b.applied) <= time.Until(d)/8 {
		return nil
	}
	b.applied = d
	return b.Conn.SetWriteDeadline(d)
}

// begin starts gathering writes.
func (b *batchConn) begin() {
	buf := batchBufs.Get().(*[]byte)
	b.mu.Lock()
	b.buf, b.deadline = buf, time.Time{}
	b.mu.Unlock()
}

// writeText writes msgs as text frames (as a server: unmasked, unfragmented,
// uncompressed) with one write, by deadline; repaired if not valid UTF-8.
// Nothing is written once the library has sent a close frame.
func (b *batchConn) writeText(log *zap.Logger, msgs [][]byte, deadline time.Time) error {
	b.begin()
	b.mu.Lock()
	b.deadline = deadline
	for _, msg := range msgs {
		if b.closeSent {
			break
		}
		*b.buf = appendTextFrame(*b.buf, validUTF8(log, msg))
	}
	b.mu.Unlock()
	return b.flush()
}

// appendTextFrame appends a final, unmasked text frame of payload p
// (RFC 6455 §5.2): the opcode byte, the length in 7, 7+16 or 7+64 bits.
func appendTextFrame(buf, p []byte) []byte {
	buf = append(buf, 0x80|websocket.TextMessage)
	switch n := len(p); {
	case n < 126:
		buf = append(buf, byte(n))
	case n <= 0xffff:
		buf = append(buf, 126)
		buf = binary.BigEndian.AppendUint16(buf, uint16(n))
	default:
		buf = append(buf, 127)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n))
	}
	return append(buf, p...)
}

// flush writes what was gathered since begin, in one write.
func (b *batchConn) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	buf := b.buf
	b.buf = nil
	var err error
	if !b.deadline.IsZero() {
		err = b.applyDeadline(b.deadline)
	}
	if err == nil && len(*buf) > 0 {
		_, err = b.Conn.Write(*buf)
	}
	if cap(*buf) <= 2*maxBatchBytes {
		*buf = (*buf)[:0]
		batchBufs.Put(buf)
	}
	return err
}

// batchWriter hands the WebSocket library a batchConn when it hijacks the
// HTTP connection.
type batchWriter struct {
	http.ResponseWriter
}

func (w batchWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &batchConn{Conn: nc}, brw, nil
}
