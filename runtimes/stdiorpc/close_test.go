package stdiorpc

// The end of a connection: the CLI's death, a Call's context, Close.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

func TestPeerDeathFailsPendingCalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
	}{
		{"eof", nil},
		{"read error", errors.New("pipe broke")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs := make(chan *Request, 1)
			p, f, _ := start(t, Handlers{OnRequest: func(r *Request) { reqs <- r }}, Options{})
			var calls []<-chan error
			for i := 0; i < 3; i++ {
				calls = append(calls, goCall(p, context.Background(), "turn/start", nil, nil))
				f.recv()
			}
			f.send(`{"method":"approve","id":0}`)
			unanswered := <-reqs
			_ = f.out.CloseWithError(tc.cause)
			want := tc.cause
			if want == nil {
				want = io.EOF
			}
			for _, c := range calls {
				err := awaitErr(t, c)
				if !errors.Is(err, ErrClosed) || !errors.Is(err, want) {
					t.Fatalf("pending Call = %v, want ErrClosed wrapping %v", err, want)
				}
			}
			select {
			case <-p.Done():
			case <-time.After(waitFor):
				t.Fatal("Done not closed")
			}
			if err := p.Err(); !errors.Is(err, ErrClosed) || !errors.Is(err, want) {
				t.Fatalf("Err = %v", err)
			}
			if err := p.Call(context.Background(), "late", nil, nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("Call after death = %v", err)
			}
			if err := p.Notify("late", nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("Notify after death = %v", err)
			}
			if err := unanswered.Reply(nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("Reply after death = %v", err)
			}
		})
	}
}

func TestCallContextEndsTheWaitOnly(t *testing.T) {
	p, f, log := start(t, Handlers{}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	pending := goCall(p, ctx, "slow", nil, nil)
	req := f.recv()
	cancel()
	if err := awaitErr(t, pending); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Call = %v", err)
	}
	f.send(fmt.Sprintf(`{"id":%s,"result":1}`, req["id"]))
	log.await(t, ErrUnknownReply)

	var n int
	done := goCall(p, context.Background(), "next", nil, &n)
	req = f.recv()
	f.send(fmt.Sprintf(`{"id":%s,"result":5}`, req["id"]))
	if err := awaitErr(t, done); err != nil || n != 5 {
		t.Fatalf("Call after a cancelled one = %v, %d", err, n)
	}
	if err := p.Notify("initialized", nil); err != nil {
		t.Fatal(err)
	}
	if m := f.recv(); string(m["method"]) != `"initialized"` || m["id"] != nil {
		t.Fatalf("notification on the wire: %v", m)
	}
}

// Close fails pending Calls with ErrClosed and can be called again.
func TestCloseFailsPendingAndIsIdempotent(t *testing.T) {
	p, f, _ := start(t, Handlers{}, Options{})
	pending := goCall(p, context.Background(), "x", nil, nil)
	f.recv()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := awaitErr(t, pending); !errors.Is(err, ErrClosed) {
		t.Fatalf("pending Call after Close = %v", err)
	}
	_ = p.Close()
	if _, open := <-f.lines; open {
		t.Fatal("the CLI's stdin is still open")
	}
}
