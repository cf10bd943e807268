package claude

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// A flood of deltas, then the whole text again as the assistant message:
// the deltas stop at kit.MaxMessageText, the message is cut there with a
// note saying how much is missing, the emitter's queue stays bounded, and
// the turn completes.
func TestFakeFloodIsBoundedAndTruncated(t *testing.T) {
	s, evs := startFake(t, fakeAdapter(t, "flood", 0))
	send(t, s, "hi")
	if _, ok := terminal(t, evs).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn: %s", describe(evs.all()))
	}
	streamed := 0
	var msgs []rpc.Message
	for _, ev := range evs.all() {
		switch ev := ev.(type) {
		case runtimes.MessageDelta:
			streamed += len(ev.Text)
		case runtimes.MessageCompleted:
			msgs = append(msgs, ev.Message)
		}
	}
	if streamed != kit.MaxMessageText {
		t.Fatalf("deltas carried %d bytes; want the limit, %d", streamed, kit.MaxMessageText)
	}
	want := strings.Repeat("x", kit.MaxMessageText) + kit.TruncationNote(floodChunks*floodSize-kit.MaxMessageText)
	if len(msgs) != 1 || msgs[0].Message.Content[0].Text != want {
		t.Fatalf("closing messages: %d, want one of %d bytes", len(msgs), len(want))
	}
	if _, peak := s.em.Queued(); peak > kit.DefaultMaxQueuedBytes+floodSize {
		t.Fatalf("the emitter held %d bytes at most, over its bound", peak)
	}
}

// A stop while the CLI floods takes the kill grace at most, with a second
// to spare: its output is dropped, not worked through.
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
	bound := a.cfg.KillGrace + time.Second
	select {
	case <-closed:
	case <-time.After(bound):
		t.Fatalf("Close still running after %v while the CLI floods", bound)
	}
	t.Logf("stopped in %v", time.Since(began))
	if !gone(s.p.Pid()) {
		t.Errorf("process group %d is still alive", s.p.Pid())
	}
}
