package sessions

import (
	"context"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// heldBytes is the frame bytes session id keeps for replay.
func heldBytes(t *testing.T, e *Engine, id string) int {
	t.Helper()
	s, err := e.session(id)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events.heldBytes()
}

// An agent that floods one turn with big chunks no longer pins them all for
// ReplayAge: the buffer keeps ReplayBytes of the newest, and a late watcher
// whose since_seq fell out is told gap:true (then reloads with messages),
// while one that is only a little behind still gets a gapless replay.
func TestReplayBufferBoundedByBytes(t *testing.T) {
	const chunk, limit = 64 << 10, 1 << 20
	a := newMem()
	// Count and age alone would keep every event of the flood.
	e, wsID := newEngine(t, a, func(c *Config) { c.ReplayBytes = limit })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	text := strings.Repeat("x", chunk)
	for range 64 { // 4 MiB of frames
		ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: text})
	}
	if held := heldBytes(t, e, id); held > limit {
		t.Fatalf("replay buffer holds %d bytes, over its %d bound", held, limit)
	}
	first := int64(1)
	res, replay, err := e.Watch(context.Background(), newRecorder("late"), wsID, id, "", &first, "")
	if err != nil || !res.Gap || res.Replayed != 0 || replay != nil {
		t.Fatalf("late watch = %+v, %v; want a gap", res, err)
	}
	recent := res.LastSeq - 3
	near := newRecorder("near")
	res, replay, err = e.Watch(context.Background(), near, wsID, id, "", &recent, "")
	if err != nil || res.Gap || res.Replayed != 3 || replay == nil {
		t.Fatalf("recent watch = %+v, %v; want 3 replayed, no gap", res, err)
	}
	replay()
	near.awaitCount(t, 3)
}
