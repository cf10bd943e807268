package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
)

// writeRecorder is a net.Conn that records each Write it is given.
type writeRecorder struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (r *writeRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, bytes.Clone(p))
	return r.Conn.Write(p)
}

func (r *writeRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.writes)
}

// nopConn accepts writes and deadlines and nothing else.
type nopConn struct{ net.Conn }

func (nopConn) Write(p []byte) (int, error)      { return len(p), nil }
func (nopConn) SetWriteDeadline(time.Time) error { return nil }

func TestBatchConnOneWriteInOrder(t *testing.T) {
	rec := &writeRecorder{Conn: nopConn{}}
	bc := &batchConn{Conn: rec}
	bc.begin()
	for _, s := range []string{"a", "b"} {
		if _, err := bc.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	// A frame the library writes on another goroutine during the batch
	// (a pong) takes its place in it, whole.
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = bc.Write([]byte("pong"))
	}()
	<-done
	_, _ = bc.Write([]byte("c"))
	if n := rec.count(); n != 0 {
		t.Fatalf("%d writes reached the socket before flush", n)
	}
	if err := bc.flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.Write([]byte("after")); err != nil {
		t.Fatal(err)
	}
	want := []string{"abpongc", "after"}
	if len(rec.writes) != len(want) {
		t.Fatalf("socket writes %q, want %q", rec.writes, want)
	}
	for i, w := range want {
		if string(rec.writes[i]) != w {
			t.Fatalf("socket writes %q, want %q", rec.writes, want)
		}
	}
}

// recordingListener hands out connections that record their writes.
type recordingListener struct {
	net.Listener
	conns chan *writeRecorder
}

func (l recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rec := &writeRecorder{Conn: c}
	l.conns <- rec
	return rec, nil
}

// TestQueuedFramesOneWrite: frames queued while the writer is held go out
// with one socket write, and arrive whole and in order.
func TestQueuedFramesOneWrite(t *testing.T) {
	h := newTestHandler()
	s := New(Config{Token: testToken, SendQueue: 256}, h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	recs := make(chan *writeRecorder, 1)
	served := make(chan error, 1)
	go func() { served <- s.Serve(recordingListener{ln, recs}) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := await(t, served, "Serve to return"); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	ws, _, err := (&testServer{}).dial(t, "ws://"+ln.Addr().String()+"/ws", bearer(testToken))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c := await(t, h.opened, "Open")
	rec := await(t, recs, "the accepted connection")

	// Holding wmu keeps the writer from writing while the frames queue up;
	// at most the first is taken before the rest are queued.
	c.wmu.Lock()
	before := rec.count()
	const n = 100
	for i := range n {
		msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"event/n","params":{"i":%d}}`, i)
		if !c.SendEvent("event/n", msg) {
			c.wmu.Unlock()
			t.Fatalf("event %d not queued", i)
		}
	}
	c.wmu.Unlock()

	for i := range n {
		typ, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"event/n","params":{"i":%d}}`, i)
		if typ != websocket.TextMessage || string(msg) != want {
			t.Fatalf("frame %d = %d %q, want text %q", i, typ, msg, want)
		}
	}
	// One write for a batch taken before the rest were queued, one for the
	// rest (a ping or heartbeat may add its own).
	if w := rec.count() - before; w > 3 {
		t.Errorf("%d frames took %d socket writes; want them batched", n, w)
	}
}

// writeText's frames read back as the library's own, at every length
// encoding (7, 16 and 64 bits) and its edges, whole and in order, with one
// socket write; invalid UTF-8 is repaired as it was through the library.
func TestWriteTextFramesReadBack(t *testing.T) {
	var msgs [][]byte
	for _, n := range []int{0, 1, 125, 126, 127, 0xffff, 0x10000, 70000} {
		msgs = append(msgs, bytes.Repeat([]byte{'a' + byte(n%26)}, n))
	}
	msgs = append(msgs, []byte("bad \xff utf-8"))
	recs := make(chan *writeRecorder, 1)
	written := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(batchWriter{w}, r, nil)
		if err != nil {
			written <- err
			return
		}
		defer ws.Close()
		bc := ws.NetConn().(*batchConn)
		rec := &writeRecorder{Conn: bc.Conn}
		bc.Conn = rec // nothing else writes yet
		recs <- rec
		written <- bc.writeText(zap.NewNop(), msgs, time.Now().Add(wait))
		_, _, _ = ws.ReadMessage() // until the client closes
	}))
	defer srv.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rec := await(t, recs, "the upgraded connection")
	for i, want := range msgs {
		if i == len(msgs)-1 {
			want = []byte("bad \uFFFD utf-8")
		}
		typ, got, err := ws.ReadMessage()
		if err != nil || typ != websocket.TextMessage || !bytes.Equal(got, want) {
			t.Fatalf("frame %d: %d, %d bytes, %v; want text of %d bytes", i, typ, len(got), err, len(want))
		}
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if n := rec.count(); n != 1 {
		t.Errorf("%d socket writes, want 1", n)
	}
}

// Once the library has sent a close frame (answering the peer's), no data
// frame follows it (RFC 6455 §5.5.1), though the writer has not yet seen
// the connection end.
func TestWriteTextNothingAfterClose(t *testing.T) {
	rec := &writeRecorder{Conn: nopConn{}}
	bc := &batchConn{Conn: rec}
	if err := bc.writeText(zap.NewNop(), [][]byte{[]byte("before")}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	closeFrame := []byte{closeFrameStart, 2, 0x03, 0xe8}
	if _, err := bc.Write(closeFrame); err != nil {
		t.Fatal(err)
	}
	if err := bc.writeText(zap.NewNop(), [][]byte{[]byte("after")}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{appendTextFrame(nil, []byte("before")), closeFrame}
	if len(rec.writes) != len(want) || !bytes.Equal(rec.writes[0], want[0]) || !bytes.Equal(rec.writes[1], want[1]) {
		t.Errorf("socket writes %q, want %q", rec.writes, want)
	}
}

// A frame's length takes the shortest of its three encodings, as RFC 6455
// §5.2 requires.
func TestAppendTextFrameMinimalLength(t *testing.T) {
	for _, tc := range []struct {
		n    int
		head []byte
	}{
		{125, []byte{0x81, 125}},
		{126, []byte{0x81, 126, 0, 126}},
		{0xffff, []byte{0x81, 126, 0xff, 0xff}},
		{0x10000, []byte{0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0}},
	} {
		f := appendTextFrame(nil, make([]byte, tc.n))
		if !bytes.HasPrefix(f, tc.head) || len(f) != len(tc.head)+tc.n {
			t.Errorf("frame of %d bytes starts % x (%d long), want % x", tc.n, f[:min(len(f), 10)], len(f), tc.head)
		}
	}
}

// deadlineRecorder counts the write deadlines set on it.
type deadlineRecorder struct {
	nopConn
	set []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

// A batch's deadline moves the socket's only when the one it has would cut
// the write short by more than an eighth of its time, or is later.
func TestBatchDeadlineMovedOnlyWhenItMatters(t *testing.T) {
	rec := &deadlineRecorder{}
	bc := &batchConn{Conn: rec}
	now := time.Now()
	for _, d := range []time.Time{
		now.Add(10 * time.Second),                      // the first: set
		now.Add(10*time.Second + time.Millisecond),     // a moment later: kept
		now.Add(12 * time.Second),                      // 2 s of 12 would be lost: set
		now.Add(11 * time.Second),                      // earlier than the socket's: set
		now.Add(11*time.Second + 100*time.Millisecond), // kept
	} {
		if err := bc.writeText(zap.NewNop(), [][]byte{[]byte("x")}, d); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Time{now.Add(10 * time.Second), now.Add(12 * time.Second), now.Add(11 * time.Second)}
	if len(rec.set) != len(want) {
		t.Fatalf("deadlines set %v, want %v", rec.set, want)
	}
	for i := range want {
		if !rec.set[i].Equal(want[i]) {
			t.Fatalf("deadlines set %v, want %v", rec.set, want)
		}
	}
}
