package transport

import (
	"context"
	"fmt"
	"testing"
)

func TestOutboxOrderAndBound(t *testing.T) {
	o := newOutbox(3)
	for i := range 3 {
		if !o.push([]byte{byte(i)}) {
			t.Fatalf("push %d refused below the bound", i)
		}
	}
	if o.push([]byte{9}) {
		t.Fatal("push beyond the bound accepted")
	}
	// Interleave pops and pushes many times the bound: order is kept, the
	// bound holds, and the backing array does not grow with the traffic.
	next, want := 3, 0
	for range 1000 {
		msg, ok := o.pop()
		if !ok || int(msg[0]) != want%256 {
			t.Fatalf("pop = %v, %v; want %d", msg, ok, want%256)
		}
		want++
		if !o.push([]byte{byte(next)}) {
			t.Fatal("push refused with room")
		}
		next++
	}
	if cap(o.items) > 8 {
		t.Fatalf("backing array grew to %d under steady traffic", cap(o.items))
	}
	for range 3 {
		if _, ok := o.pop(); !ok {
			t.Fatal("queued message lost")
		}
	}
	if _, ok := o.pop(); ok {
		t.Fatal("pop from an empty queue")
	}
}

// A waiting sender leaves a quarter of the queue to plain sends.
func TestOutboxPushWaitLeavesRoom(t *testing.T) {
	o := newOutbox(8)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	for o.pushWait(ctx, nil, []byte("r")) {
		n++
	}
	if n != 6 {
		t.Fatalf("a waiting sender queued %d of 8, want 6", n)
	}
	for i := range 2 {
		if !o.push([]byte("reply")) {
			t.Fatalf("plain send %d found no room", i)
		}
	}
	if o.push([]byte("more")) {
		t.Fatal("the bound no longer holds")
	}
}

func TestOutboxPushWait(t *testing.T) {
	o := newOutbox(1)
	o.push([]byte("a"))
	done := make(chan struct{})
	got := make(chan bool)
	go func() { got <- o.pushWait(context.Background(), done, []byte("b")) }()
	if msg, _ := o.pop(); string(msg) != "a" {
		t.Fatalf("pop = %q", msg)
	}
	if !<-got {
		t.Fatal("pushWait gave up although room was made")
	}
	if msg, _ := o.pop(); string(msg) != "b" {
		t.Fatalf("pop = %q", msg)
	}
	o.push([]byte("c"))
	close(done)
	if o.pushWait(context.Background(), done, []byte("d")) {
		t.Fatal("pushWait queued on a closed connection's full queue")
	}
}

func BenchmarkOutbox(b *testing.B) {
	o := newOutbox(1024)
	msg := []byte(fmt.Sprint("x"))
	for b.Loop() {
		o.push(msg)
		o.pop()
	}
}

// Bursts through a queue keep their order across the array it borrows
// (queueArrays), the arrays it outgrows, and the ones it gives back; a
// drained queue holds no array at all.
func TestOutboxBurstsBorrowArrays(t *testing.T) {
	o := newOutbox(1024)
	next, want := 0, 0
	pop := func() {
		t.Helper()
		msg, ok := o.pop()
		if !ok || string(msg) != fmt.Sprint(want) {
			t.Fatalf("pop = %q, %v; want %d", msg, ok, want)
		}
		want++
	}
	for _, n := range []int{1, 10, queueChunk, queueChunk + 1, 3 * queueChunk, 50} {
		for i := range n {
			if !o.push([]byte(fmt.Sprint(next))) {
				t.Fatalf("push %d of %d refused", i, n)
			}
			next++
			if i%3 == 2 {
				pop() // the writer takes some while the burst comes in
			}
		}
		for want < next {
			pop()
		}
		if o.items != nil {
			t.Fatalf("after a burst of %d the drained queue holds an array of %d", n, cap(o.items))
		}
	}
}
