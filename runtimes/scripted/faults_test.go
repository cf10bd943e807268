package scripted

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// Faults are real: the fake CLI process crashes, hangs, or writes what it
// should not. Each ends with the process gone (checked in start's cleanup).

func TestCrashMidTurn(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, scriptOf(`{"message":"before"}`, `{"crash":3}`))
	got, evs := s.until(t, isExit)
	assertEvents(t, got, "activity thinking", "message assistant before", "failed cli_exited", "activity idle", "exited 3 exited")
	if msg := evs[2].(runtimes.TurnFailed).Message; !strings.Contains(msg, "exit code 3") {
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
		fmt.Sprintf("completed in=%d out=5 end_turn", len(prompt)), "activity idle")
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
	assertEvents(t, got, "activity thinking", "message assistant before", "failed output_too_large", "activity idle",
		"exited 0 output_too_large")
	if msg := evs[2].(runtimes.TurnFailed).Message; !strings.Contains(msg, "4096") {
		t.Errorf("TurnFailed message %q does not give the line's size", msg)
	}
}

// fakeClock hands out stall timers that fire only when the test says so.
type fakeClock struct {
	mu     sync.Mutex
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *fakeClock
	f       func()
	stopped bool // guarded by c.mu
}

func (c *fakeClock) AfterFunc(_ time.Duration, f func()) proc.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

// running is the timers that were started and not stopped.
func (c *fakeClock) running() []*fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var r []*fakeTimer
	for _, t := range c.timers {
		if !t.stopped {
			r = append(r, t)
		}
	}
	return r
}

// fire fires the one running timer.
func (c *fakeClock) fire(t *testing.T) {
	t.Helper()
	r := c.running()
	if len(r) != 1 {
		t.Fatalf("%d stall timers running, want 1", len(r))
	}
	r[0].f()
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
			clock := &fakeClock{}
			a, _ := newAdapter(t, Config{clock: clock, KillGrace: 50 * time.Millisecond})
			s := start(t, a, runtimes.StartRequest{})
			s.send(t, scriptOf(tt.steps...))
			got, _ := s.until(t, func(e runtimes.Event) bool { _, ok := e.(runtimes.MessageCompleted); return ok })
			assertEvents(t, got, "activity thinking", "message assistant stuck")
			// The CLI's last output restarted the timer; now it is hung.
			clock.fire(t)
			got, _ = s.until(t, isExit)
			assertEvents(t, got, "failed stall_timeout", "activity idle", tt.exit)
		})
	}
}

func TestStallTimerPausedForPrompts(t *testing.T) {
	clock := &fakeClock{}
	a, _ := newAdapter(t, Config{clock: clock})
	s := start(t, a, runtimes.StartRequest{})
	if n := len(clock.running()); n != 0 {
		t.Fatalf("%d stall timers running before any turn", n)
	}
	s.send(t, scriptOf(`{"question":{"text":"Sure?"}}`, `{"wait_interrupt":true}`))
	p := s.prompted(t, rpc.ActivityQuestion, "activity thinking", "question Sure? []", "activity question")
	if n := len(clock.running()); n != 0 {
		t.Fatalf("%d stall timers running while waiting for an answer", n)
	}
	if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Text: "yes"}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	got, _ := s.until(t, func(e runtimes.Event) bool { _, ok := e.(runtimes.MessageCompleted); return ok })
	assertEvents(t, got, "activity thinking", "message assistant answer: yes")
	// Answered, the turn runs again, and so does the timer.
	clock.fire(t)
	got, _ = s.until(t, isExit)
	assertEvents(t, got, "failed stall_timeout", "activity idle", "exited 0 stall_timeout")
}

func TestStallTimerStopsWithTheTurn(t *testing.T) {
	clock := &fakeClock{}
	a, _ := newAdapter(t, Config{clock: clock})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, "hi")
	s.turnEvents(t)
	if n := len(clock.running()); n != 0 {
		t.Errorf("%d stall timers running after the turn", n)
	}
}
