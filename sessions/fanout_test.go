package sessions

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"unsafe"

	"github.com/cdevd/cdevd/rpc"
)

// keeper is a recorder that also keeps the events themselves.
type keeper struct {
	*recorder
	mu  sync.Mutex
	evs []*Event
}

func (k *keeper) Deliver(ev *Event) {
	k.mu.Lock()
	k.evs = append(k.evs, ev)
	k.mu.Unlock()
	k.recorder.Deliver(ev)
}

func (k *keeper) DeliverWait(_ context.Context, ev *Event) error {
	k.Deliver(ev)
	return nil
}

// An event's method name is its frame's, made once when the event is: the
// transport asks for it for every watcher of every event.
func TestEventMethodMadeOnce(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := &keeper{recorder: newRecorder("c1")}
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	deltas(ms, 1)
	w.await(t, rpc.EventPrefix+rpc.EventMessageDelta)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ev := range w.evs {
		var n struct{ Method string }
		if err := json.Unmarshal(ev.Frame, &n); err != nil {
			t.Fatal(err)
		}
		m1, m2 := ev.Method(), ev.Method()
		if m1 != n.Method {
			t.Errorf("Method() = %q, the frame says %q", m1, n.Method)
		}
		if unsafe.StringData(m1) != unsafe.StringData(m2) {
			t.Errorf("%s: Method() builds its string on every call", m1)
		}
	}
}
