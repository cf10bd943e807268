package scripted

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

// Faults are real: the fake CLI process crashes, hangs, or writes what it
// should not. Each ends with the process gone (checked in start's cleanup).

func TestCrashMidTurn(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, scriptOf(`{"message":"before"}`, `{"crash":3}`))
	got, evs := s.until(t, isExit)
	assertEvents(t, got, "activity thinking", "message assistant before", "activity idle", "failed cli_exited", "exited 3 exited")
	if msg := evs[3].(runtimes.TurnFailed).Message; !strings.Contains(msg, "exit code 3") {
		t.Errorf("TurnFailed message %q does not give the exit code", msg)
	}
	select {
	case <-s.Done():
	case <-time.After(deadline):
		t.Fatal("Done not closed after ProcessExited")
	}
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "hi"}); !errors.Is(err, runtimes.ErrExited) {
		t.Errorf("Send after the crash = %v, want ErrExited", err)
	}
}

func TestGarbageIgnored(t *testing.T) {
	a, logs := newAdapter(t, Config{MaxLine: 1024})
	s := start(t, a, runtimes.StartRequest{})
	prompt := scriptOf(`{"garbage":"not json"}`, `{"bigline":1000}`, `{"message":"after"}`)
	s.send(t, prompt)
	got, _ := s.turnEvents(t)
	assertEvents(t, got, "activity thinking", "message assistant after",
		"activity idle", fmt.Sprintf("completed in=%d out=5 end_turn", len(prompt)))
	if n := logs.FilterMessage("ignoring a CLI line that is not an event").Len(); n != 2 {
		t.Errorf("%d warnings about non-JSON lines, want 2", n)
	}
}

func TestOversizeLine(t *testing.T) {
	a, _ := newAdapter(t, Config{MaxLine: 1024})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, scriptOf(`{"message":"before"}`, `{"bigline":4096}`, `{"message":"after"}`))
	got, evs := s.until(t, isExit)
	// The CLI ends on the adapter's SIGTERM, cleanly.
	assertEvents(t, got, "activity thinking", "message assistant before", "activity idle", "failed output_too_large",
		"exited 0 output_too_large")
	if msg := evs[3].(runtimes.TurnFailed).Message; !strings.Contains(msg, "4096") {
		t.Errorf("TurnFailed message %q does not give the line's size", msg)
	}
}

// fireStall fires the one running stall timer.
func fireStall(t *testing.T, c *proctest.Clock) {
	t.Helper()
	r := c.Running()
	if len(r) != 1 {
		t.Fatalf("%d stall timers running, want 1", len(r))
	}
	r[0].Fire()
}

func TestStall(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
		exit  string
	}{
		// The hung CLI still ends on SIGTERM.
		{"hang", []string{`{"message":"stuck"}`, `{"hang":true}`}, "exited 0 stall_timeout"},
		// Deaf to SIGTERM: the kill after KillGrace ends it.
		{"hang ignoring SIGTERM", []string{`{"ignore_term":true}`, `{"message":"stuck"}`, `{"hang":true}`}, "exited -1 stall_timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &proctest.Clock{}
			a, _ := newAdapter(t, Config{clock: clock, KillGrace: 50 * time.Millisecond})
			s := start(t, a, runtimes.StartRequest{})
			s.send(t, scriptOf(tt.steps...))
			got, _ := s.until(t, func(e runtimes.Event) bool { _, ok := e.(runtimes.MessageCompleted); return ok })
			assertEvents(t, got, "activity thinking", "message assistant stuck")
			// The CLI's last output restarted the timer; now it is hung.
			fireStall(t, clock)
			got, _ = s.until(t, isExit)
			assertEvents(t, got, "activity idle", "failed stall_timeout", tt.exit)
		})
	}
}

func TestStallTimerPausedForPrompts(t *testing.T) {
	clock := &proctest.Clock{}
	a, _ := newAdapter(t, Config{clock: clock})
	s := start(t, a, runtimes.StartRequest{})
	if n := len(clock.Running()); n != 0 {
		t.Fatalf("%d stall timers running before any turn", n)
	}
	s.send(t, scriptOf(`{"question":{"text":"Sure?"}}`, `{"wait_interrupt":true}`))
	p := s.prompted(t, rpc.ActivityQuestion, "activity thinking", "question Sure? []", "activity question")
	if n := len(clock.Running()); n != 0 {
		t.Fatalf("%d stall timers running while waiting for an answer", n)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Text: "yes"}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	got, _ := s.until(t, func(e runtimes.Event) bool { _, ok := e.(runtimes.MessageCompleted); return ok })
	assertEvents(t, got, "activity thinking", "message assistant answer: yes")
	// Answered, the turn runs again, and so does the timer.
	fireStall(t, clock)
	got, _ = s.until(t, isExit)
	assertEvents(t, got, "activity idle", "failed stall_timeout", "exited 0 stall_timeout")
}

func TestStallTimerStopsWithTheTurn(t *testing.T) {
	clock := &proctest.Clock{}
	a, _ := newAdapter(t, Config{clock: clock})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, "hi")
	s.turnEvents(t)
	if n := len(clock.Running()); n != 0 {
		t.Errorf("%d stall timers running after the turn", n)
	}
}
