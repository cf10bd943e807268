package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
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
