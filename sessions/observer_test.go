package sessions

import (
	"sync"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// observed records the types of the events an Observer saw.
type observed struct {
	mu    sync.Mutex
	types []string
}

func (o *observed) Observe(ev *Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.types = append(o.types, ev.Type)
}

func (o *observed) count(typ string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, t := range o.types {
		if t == typ {
			n++
		}
	}
	return n
}

// The observer sees a session's events whether or not anyone watches it,
// and Watched tells the two cases apart.
func TestObserverSeesEventsWithoutWatchers(t *testing.T) {
	a := newMem()
	o := &observed{}
	e, wsID := newEngine(t, a, func(c *Config) { c.Observer = o })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if !e.Watched(id, anyone) {
		t.Fatal("Watched = false while the starting client watches")
	}
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "watched"})
	e.Unwatch(w, id)
	if e.Watched(id, anyone) {
		t.Fatal("Watched = true after the only watcher left")
	}
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "unwatched"})
	if got := o.count(rpc.EventMessageDelta); got != 2 {
		t.Fatalf("observer saw %d message deltas, want 2 (one watched, one not)", got)
	}
	if e.Watched("no-such-session", anyone) {
		t.Fatal("Watched = true for an unknown session")
	}
}

func anyone(string) bool { return true }
