package transport

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A request answered on the reading goroutine with a deep call does not
// leave that goroutine's grown stack to the idle connection: the next
// message is awaited on a fresh goroutine.
func TestIdleReaderStackStaysSmall(t *testing.T) {
	s := startServer(t, Config{})
	const n = 12 // under the test handler's channel capacities
	// A collection first, each time: the stacks of goroutines that ended
	// during one are freed only at its end. A collection halves a stack
	// that uses little, so a grown reader's stays over the bound anyway.
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		ws, _ := s.rawConn(t)
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"deep"}`, i)
		if resp := decodeResponse(t, roundTrip(t, ws, frame)); resp.Error != nil {
			t.Fatalf("deep: %+v", resp.Error)
		}
	}
	if got, handedOver := settledConnGoroutines(n); got != n || handedOver != n {
		t.Fatalf("%d idle connections run %d goroutines, %d of them handed-over readers; want %d readers only", n, got, handedOver, n)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	// Each call grew its goroutine's stack to 512 KiB; an idle reader needs
	// a few KiB. The bound leaves room for the test's own goroutines.
	perConn := (int64(after.StackInuse) - int64(before.StackInuse)) / n
	if perConn > 32<<10 {
		t.Errorf("stacks grew by %d KiB per idle connection, want at most 32 KiB", perConn>>10)
	}
}

// Messages sent together, read into the buffer at once so that the socket
// has nothing more, are all handled, in the order sent: the reader that
// takes over after the first one finds the rest in the buffer.
func TestReaderHandsOverInOrder(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)
	// One write of whole frames (masked with a zero key, as a client must
	// mask), under the read buffer's size.
	const n = 10
	var frames []byte
	for i := range n {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":[%d]}`, i, i)
		frames = append(frames, 0x81, 0x80|byte(len(msg)), 0, 0, 0, 0)
		frames = append(frames, msg...)
	}
	if len(frames) > readBufferSize {
		t.Fatalf("%d bytes of frames: over the read buffer", len(frames))
	}
	if _, err := ws.NetConn().Write(frames); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		resp := decodeResponse(t, readFrame(t, ws))
		if resp.Error != nil || string(resp.Result) != fmt.Sprintf("[%d]", i) {
			t.Fatalf("reply %d: %+v", i, resp)
		}
	}
}

// A connection that has initialized and idles waits for its next message
// on a goroutine started after the first one, and on the socket, not deep
// in the library's read path.
func TestIdleReaderWaitsOnSocket(t *testing.T) {
	s := startServer(t, Config{})
	ws, _ := s.rawConn(t)
	if resp := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo"}`)); resp.Error != nil {
		t.Fatalf("echo: %+v", resp.Error)
	}
	if got, handedOver := settledConnGoroutines(1); got != 1 || handedOver != 1 {
		t.Fatalf("an idle connection runs %d goroutines, %d of them a handed-over reader; want that reader only", got, handedOver)
	}
	// The reader handed over to may not have reached its wait yet, so the
	// stacks are read until it shows, or the wait runs out.
	var reader string
	for deadline := time.Now().Add(wait); ; runtime.Gosched() {
		if stacks := connStacks(); len(stacks) > 0 {
			reader = stacks[len(stacks)-1]
		}
		if strings.Contains(reader, "(*FD).RawRead") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(reader, handedOverMark) {
		t.Errorf("the idle reader was not started after the first message:\n%s", reader)
	}
	if !strings.Contains(reader, "(*FD).RawRead") || strings.Contains(reader, "NextReader") {
		t.Errorf("the idle reader does not wait on the socket:\n%s", reader)
	}
}
