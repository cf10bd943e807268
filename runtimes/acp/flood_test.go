package acp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// An agent answering one prompt with a flood of big chunks: what cdevd
// holds stays bounded (the peer's inbox, the emitter's queue), the message
// is cut at kit.MaxMessageText both as deltas and as the closing message,
// which says how much is missing, and the turn completes.
func TestFloodIsBoundedAndTruncated(t *testing.T) {
	const chunks, size = 24, 256 << 10 // 6 MiB: past the inbox bound and the message limit
	a := New(fakeSpec(t, acpfake.Options{}))
	rs, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	s := rs.(*session)
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: fmt.Sprintf("FLOOD %d %d", chunks, size)}); err != nil {
		t.Fatal(err)
	}
	evs := rec.until(t, isTurnEnd)
	if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn ended %#v", evs[len(evs)-1])
	}
	if got := len(text(evs, rpc.PhaseText)); got != kit.MaxMessageText {
		t.Fatalf("deltas carried %d bytes; want the limit, %d", got, kit.MaxMessageText)
	}
	ms := completed(evs)
	if len(ms) != 1 || len(ms[0].Message.Content) != 1 {
		t.Fatalf("closing messages: %d", len(ms))
	}
	want := strings.Repeat("x", kit.MaxMessageText) + kit.TruncationNote(chunks*size-kit.MaxMessageText)
	if got := ms[0].Message.Content[0].Text; got != want {
		t.Fatalf("closing message: %d bytes ending %q; want %d ending %q", len(got), got[max(len(got)-40, 0):], len(want), want[len(want)-40:])
	}
	if q := s.peer.Queue(); q.Peak > stdiorpc.DefaultMaxQueued+size {
		t.Fatalf("the peer held %d bytes at most, over its bound", q.Peak)
	}
	if _, peak := s.em.Queued(); peak > kit.DefaultMaxQueuedBytes+size {
		t.Fatalf("the emitter held %d bytes at most, over its bound", peak)
	}
}

// A stop while the agent floods (and ignores session/cancel) takes the
// interrupt's bound and the kill grace at most, with a second to spare:
// the backlog is dropped, not worked through, and the process group is
// ended. (Before, the stop worked through everything read so far: 6 s here
// for a second of flood, 17.5 s for 2 GB, past the daemon's 8 s bound.)
func TestStopWhileFloodingIsPrompt(t *testing.T) {
	spec := fakeSpec(t, acpfake.Options{})
	spec.KillGrace = 2 * time.Second
	a := New(spec)
	rs, rec := start(t, a, runtimes.StartRequest{Dir: workspace(t)})
	if err := rs.Send(context.Background(), runtimes.Turn{Prompt: "FLOOD 0 1048576"}); err != nil {
		t.Fatal(err)
	}
	rec.until(t, func(ev runtimes.Event) bool { _, ok := ev.(runtimes.MessageDelta); return ok })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // the engine's StopTimeout
	defer cancel()
	closed := make(chan error, 1)
	began := time.Now()
	go func() { closed <- rs.Close(ctx) }()
	bound := interruptBeforeStop + spec.KillGrace + time.Second
	select {
	case <-closed:
	case <-time.After(bound):
		t.Fatalf("Close still running after %v while the agent floods", bound)
	}
	t.Logf("stopped in %v", time.Since(began))
	select {
	case <-rs.Done():
	default:
		t.Fatal("Close returned before ProcessExited was delivered")
	}
}
