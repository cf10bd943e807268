package sessions

// Watchers: replay since a seq (no gap, no duplicate, slow clients,
// superseded and stopped replays, epochs), external tails and takeover.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func TestReplayHasNoGapNoDuplicate(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	first := newRecorder("c1")
	id, ms := start(t, e, a, first, wsID)
	for i := range 20 {
		ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: string(rune('a' + i))})
	}
	seen := int64(len(first.events()))
	e.Unwatch(first, id) // the client drops
	deltas(ms, 10)
	back := newRecorder("c1-again")
	res, replay, err := e.Watch(context.Background(), back, wsID, id, "", &seen, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Gap || res.Replayed != 10 || res.LastSeq != seen+10 || replay == nil {
		t.Fatalf("watch result %+v", res)
	}
	// Events emitted between the reply and the replay are not lost.
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "before replay"})
	replay()
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "live"})
	back.awaitCount(t, 12)
	all := append(first.events(), back.events()...)
	assertSeqsContiguous(t, all)
}

// slowWatcher takes replayed events one at a time, when the test lets it,
// like a client whose send queue is full.
type slowWatcher struct {
	*recorder
	room chan struct{}
}

func (s slowWatcher) DeliverWait(ctx context.Context, ev *Event) error {
	select {
	case <-s.room:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.Deliver(ev)
	return nil
}

func TestReplayLongerThanTheClientCanTakeAtOnce(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 50)
	w := slowWatcher{newRecorder("slow"), make(chan struct{})}
	zero := int64(0)
	_, replay, err := e.Watch(context.Background(), w, wsID, id, "", &zero, "")
	if err != nil {
		t.Fatal(err)
	}
	replay()
	// The session goes on while the client is catching up: nothing waits
	// for it, and it misses nothing.
	for i := range 100 {
		if i%2 == 0 {
			w.room <- struct{}{}
		}
		ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "live"})
	}
	close(w.room)
	w.awaitCount(t, 151)
	assertSeqsContiguous(t, w.events())
}

func TestGapWhenBufferNoLongerReachesBack(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.ReplayEvents, c.ReplayMax, c.ReplayAge = 5, 5, time.Nanosecond })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	deltas(ms, 20)
	zero := int64(1)
	res, replay, err := e.Watch(context.Background(), newRecorder("late"), wsID, id, "", &zero, "")
	if err != nil || !res.Gap || res.Replayed != 0 || replay != nil {
		t.Fatalf("watch = %+v, %v; want gap", res, err)
	}
	future := int64(1_000_000) // a seq from another epoch
	res, _, _ = e.Watch(context.Background(), newRecorder("other-epoch"), wsID, id, "", &future, "")
	if !res.Gap {
		t.Fatal("a seq beyond last_seq must report a gap")
	}
}

func TestExternalTailEndsWithItsLastWatcher(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	if err := os.WriteFile(filepath.Join(a.dir, "ext.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w1, w2 := newRecorder("c1"), newRecorder("c2")
	if _, _, err := e.Watch(context.Background(), w1, wsID, "ext", "", nil, ""); err != nil {
		t.Fatal(err)
	}
	tail := <-a.tails
	if _, _, err := e.Watch(context.Background(), w2, wsID, "ext", "", nil, ""); err != nil {
		t.Fatal(err)
	}
	tail.emit(rpc.Message{ID: "m1", Type: rpc.MessageAssistant, Message: rpc.MessageBody{Role: "assistant"}})
	for _, w := range []*recorder{w1, w2} {
		if ev := w.await(t, "event/claude_message"); ev["seq"] != float64(1) || ev["session_id"] != "ext" {
			t.Fatalf("tailed message = %v", ev)
		}
	}
	if _, err := e.State("ext"); !isCode(err, rpc.CodeSessionNotFound) {
		t.Fatal("a session run outside cdevd is not one cdevd runs")
	}
	e.Unwatch(w1, "ext")
	select {
	case <-tail.t.closed:
		t.Fatal("tail ended while a watcher remained")
	default:
	}
	e.Detach(w2)
	select {
	case <-tail.t.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("tail outlived its last watcher")
	}
	if e.lookup("ext") != nil {
		t.Fatal("the external session was not forgotten")
	}
}

func TestSecondReplayForTheSameClientSupersedesTheFirst(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 5)
	w := slowWatcher{newRecorder("c"), make(chan struct{})}
	zero, three := int64(0), int64(3)
	_, first, _ := e.Watch(context.Background(), w, wsID, id, "", &zero, "")
	first()
	w.room <- struct{}{} // the first replay delivers one event, then waits
	w.awaitCount(t, 1)
	_, second, _ := e.Watch(context.Background(), w, wsID, id, "", &three, "")
	second()
	close(w.room)
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "live"})
	w.awaitCount(t, 1+4) // seq 1 from the first; 4..7 from the second and live
	// The superseded replay stopped: nothing arrives twice or out of order.
	var seqs []float64
	for _, ev := range w.events() {
		seqs = append(seqs, ev["seq"].(float64))
	}
	if !slices.Equal(seqs, []float64{1, 4, 5, 6, 7}) {
		t.Fatalf("seqs delivered %v, want [1 4 5 6 7]", seqs)
	}
}

func TestUnwatchStopsAReplayAtOnce(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 50)
	w := slowWatcher{newRecorder("c"), make(chan struct{})}
	zero := int64(0)
	_, replay, _ := e.Watch(context.Background(), w, wsID, id, "", &zero, "")
	replay()
	w.room <- struct{}{}
	w.awaitCount(t, 1)
	e.Unwatch(w, id)
	close(w.room)                 // room for everything: a replay still running would use it
	e.Close(context.Background()) // waits for the replay goroutine to end
	if n := len(w.events()); n != 1 {
		t.Fatalf("%d events after unwatch, want the 1 before it", n)
	}
}

func TestWatchFromAnotherEpochIsAGap(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 5)
	two := int64(2)
	res, replay, err := e.Watch(context.Background(), newRecorder("c"), wsID, id, "", &two, "old-epoch")
	if err != nil || !res.Gap || replay != nil {
		t.Fatalf("watch with another epoch = %+v, %v", res, err)
	}
	res, replay, _ = e.Watch(context.Background(), newRecorder("d"), wsID, id, "", &two, e.Epoch())
	if res.Gap || replay == nil {
		t.Fatalf("watch with this epoch = %+v", res)
	}
	replay()
}

func TestTakeoverKeepsTheCallerAndCutsTheOthers(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	if err := os.WriteFile(filepath.Join(a.dir, "ext.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	caller, other := newRecorder("caller"), newRecorder("other")
	for _, w := range []*recorder{caller, other} {
		if _, _, err := e.Watch(context.Background(), w, wsID, "ext", "", nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	tail := <-a.tails
	// The caller resumes the session in cdevd.
	if _, err := e.Send(context.Background(), caller, SendOptions{Prompt: "take over", SessionID: "ext", WorkspaceID: wsID}); err != nil {
		t.Fatal(err)
	}
	<-tail.t.closed
	caller.mu.Lock()
	cutCaller := caller.cut
	caller.mu.Unlock()
	other.mu.Lock()
	cutOther := other.cut
	other.mu.Unlock()
	if cutCaller != "" || cutOther == "" {
		t.Fatalf("caller cut %q, other cut %q: want only the other cut", cutCaller, cutOther)
	}
	if ev := caller.await(t, "event/session_start"); ev["session_id"] != "ext" {
		t.Fatalf("caller did not see the run start: %v", ev)
	}
}
