package rollout

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func userLine(id, text string) string {
	return `{"timestamp":"2026-11-23T02:00:00.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"` +
		id + `","content":[{"type":"text","text":"` + text + `"}]}}}` + "\n"
}

// TestTailGrowing follows a rollout as Codex appends to it: only messages
// written after Tail started arrive, in order, a line written in two pieces
// arrives once whole, and other lines (garbage included) are skipped.
func TestTailGrowing(t *testing.T) {
	home, ws, _, paths := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msgs := make(chan rpc.Message, 100)
	logs := make(chan string, 100)
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zap.DebugLevel),
		zap.Hooks(func(e zapcore.Entry) error { logs <- e.Message; return nil }))
	c, err := New(home, log).Tail(ctx, ws, threadA, func(m rpc.Message) { msgs <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	expect := func(want ...string) {
		t.Helper()
		deadline := time.After(waitTimeout)
		for _, id := range want {
			select {
			case m := <-msgs:
				if m.ID != id || m.SessionID != threadA {
					t.Fatalf("got %s of %s, want %s", m.ID, m.SessionID, id)
				}
			case <-deadline:
				t.Fatalf("timed out waiting for %s", id)
			}
		}
	}
	p := paths[threadA]
	appendFile(t, p, userLine("u_1", "one")+"not json\n"+`{"type":"token_usage_record","payload":{}}`+"\n"+userLine("u_2", "two"))
	expect("u_1", "u_2")
	line := userLine("u_3", "three")
	appendFile(t, p, line[:40])
	appendFile(t, p, line[40:]+userLine("u_4", "four"))
	expect("u_3", "u_4")

	// A truncated rollout is followed from its new end: what is written
	// once the tailer noticed arrives.
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	for deadline := time.After(waitTimeout); ; {
		select {
		case l := <-logs:
			if !strings.Contains(l, "truncated") {
				continue
			}
		case <-deadline:
			t.Fatal("truncation not noticed")
		}
		break
	}
	appendFile(t, p, userLine("u_5", "five"))
	expect("u_5")

	c.Close()
	appendFile(t, p, userLine("u_6", "six"))
	select {
	case m := <-msgs:
		t.Errorf("message %s after Close", m.ID)
	default:
	}
}

func TestTailUnknownThread(t *testing.T) {
	home, ws, other, _ := setup(t)
	s := newStore(t, home)
	for _, tc := range []struct{ dir, id string }{{ws, "01a205e0-0000-7000-8000-0000000000ff"}, {other, threadA}} {
		if _, err := s.Tail(context.Background(), tc.dir, tc.id, func(rpc.Message) {}); !errors.Is(err, runtimes.ErrNoSession) {
			t.Errorf("Tail(%s, %s): %v", tc.dir, tc.id, err)
		}
	}
}

// TestTailStopsWithContext: ending ctx closes the tail (goleak checks that
// nothing is left).
func TestTailStopsWithContext(t *testing.T) {
	home, ws, _, _ := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := newStore(t, home).Tail(ctx, ws, threadA, func(rpc.Message) {})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
