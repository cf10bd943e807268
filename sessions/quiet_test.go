package sessions

// A quiet session gives back its replay buffer and keeps its seq.

import (
	"context"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

func TestQuietSessionGivesBackItsReplayBuffer(t *testing.T) {
	// Once stopped and unwatched for ReplayAge, a session keeps its state
	// and its seq, not its events: memory does not grow with every session
	// the daemon ever ran.
	const age = 20 * time.Millisecond
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.ReplayAge = age })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	deltas(ms, 100)
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	w.await(t, "event/session_stopped")
	e.Unwatch(w, id)
	s := e.lookup(id)
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(age / 4)
	defer tick.Stop()
	for {
		s.mu.Lock()
		n, last := s.events.n, s.seq
		s.mu.Unlock()
		if n == 0 {
			if last < 100 {
				t.Fatalf("seq %d after 100 events", last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events still held by a session quiet for %v", n, 10*time.Second)
		}
		<-tick.C
	}

	last := int64(len(w.events()))
	early := int64(1)
	res, replay, err := e.Watch(context.Background(), newRecorder("late"), wsID, id, "", &early, "")
	if err != nil || !res.Gap || res.Replayed != 0 || replay != nil || res.LastSeq != last {
		t.Fatalf("watch from seq 1 = %+v, %v; want a gap at %d", res, err, last)
	}
	back := newRecorder("back")
	res, _, err = e.Watch(context.Background(), back, wsID, id, "", &last, "")
	if err != nil || res.Gap || res.Replayed != 0 {
		t.Fatalf("watch from the last seq = %+v, %v; want no gap, nothing to replay", res, err)
	}
	st, err := e.State(id)
	if err != nil || st.Status != rpc.StatusStopped || st.LastSeq != last {
		t.Fatalf("state = %+v, %v", st, err)
	}
}
