package codex

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// A flood of deltas, then the whole text again in item/completed: the
// deltas stop at kit.MaxMessageText, the closing message is cut there with
// a note saying how much is missing, the queues stay bounded, and the turn
// completes.
func TestFakeFloodIsBoundedAndTruncated(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "flood", 0))
	send(t, s, "hi")
	if _, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn: %s", describe(evs.all()))
	}
	streamed := 0
	for _, ev := range evs.all() {
		if d, ok := ev.(runtimes.MessageDelta); ok && d.Phase == rpc.PhaseText {
			streamed += len(d.Text)
		}
	}
	if streamed != kit.MaxMessageText {
		t.Fatalf("deltas carried %d bytes; want the limit, %d", streamed, kit.MaxMessageText)
	}
	msg := await[runtimes.MessageCompleted](t, evs, nil)
	want := strings.Repeat("x", kit.MaxMessageText) + kit.TruncationNote(floodChunks*floodSize-kit.MaxMessageText)
	if got := msg.Message.Message.Content[0].Text; got != want {
		t.Fatalf("closing message: %d bytes, want %d", len(got), len(want))
	}
	if q := s.peer.Queue(); q.Peak > stdiorpc.DefaultMaxQueued+floodChunks*floodSize {
		// item/completed is one line of the whole text: it may be taken alone.
		t.Fatalf("the peer held %d bytes at most, over its bound", q.Peak)
	}
	if _, peak := s.em.Queued(); peak > kit.DefaultMaxQueuedBytes+floodSize {
		t.Fatalf("the emitter held %d bytes at most, over its bound", peak)
	}
}

// A stop while Codex floods (deaf to turn/interrupt) takes the interrupt's
// bound and the kill grace at most, with a second to spare: the backlog is
// dropped, not worked through.
func TestFakeStopWhileFloodingIsPrompt(t *testing.T) {
	a := fakeAdapter(t, "floodforever", 0)
	s, evs := startFake(t, a)
	send(t, s, "hi")
	await[runtimes.MessageDelta](t, evs, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // the engine's StopTimeout
	defer cancel()
	closed := make(chan error, 1)
	began := time.Now()
	go func() { closed <- s.Close(ctx) }()
	bound := interruptBeforeStop + a.cfg.KillGrace + time.Second
	select {
	case <-closed:
	case <-time.After(bound):
		t.Fatalf("Close still running after %v while Codex floods", bound)
	}
	t.Logf("stopped in %v", time.Since(began))
	if !gone(s.p.Pid()) {
		t.Errorf("process group %d is still alive", s.p.Pid())
	}
}
