package bench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A stamped watcher reads each message whole into the buffer it reuses,
// and every frame that came in with one socket read has that read's time
// as its arrival, not the time the reader got to it.
func TestStampedReadFrame(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3*watcherReadBuffer) // longer than the read buffer
	small := []string{"one", "two", "three"}
	sent := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		if ws.WriteMessage(websocket.TextMessage, big) != nil {
			return
		}
		// Three small unmasked text frames in one socket write.
		var raw []byte
		for _, s := range small {
			raw = append(append(raw, 0x81, byte(len(s))), s...)
		}
		sent <- time.Now()
		if _, err := ws.NetConn().Write(raw); err != nil {
			return
		}
		_, _, _ = ws.ReadMessage() // until the client closes
	}))
	defer srv.Close()
	c, err := dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), "", true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if c.stamp == nil {
		t.Fatal("a stamped connection has no stampConn")
	}
	buf := make([]byte, 0, 16)
	if buf, err = c.readFrame(buf[:0]); err != nil || !bytes.Equal(buf, big) {
		t.Fatalf("readFrame = %d bytes, %v; want the %d sent", len(buf), err, len(big))
	}
	before := <-sent
	var stamps []time.Time
	for _, want := range small {
		reused := cap(buf)
		if buf, err = c.readFrame(buf[:0]); err != nil || string(buf) != want {
			t.Fatalf("readFrame = %q, %v; want %q", buf, err, want)
		}
		if cap(buf) != reused {
			t.Errorf("readFrame grew a buffer that had room (%d → %d)", reused, cap(buf))
		}
		stamps = append(stamps, c.stamp.last)
	}
	if stamps[0].Before(before) || stamps[1] != stamps[0] || stamps[2] != stamps[0] {
		t.Errorf("arrivals %v of frames written together at %v: want one read's time, not before the write", stamps, before)
	}
}
