package scripted

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
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

func TestStall(t *testing.T) {
	// The hung CLI ignores SIGTERM: only the kill after KillGrace ends it.
	a, _ := newAdapter(t, Config{StallTimeout: 200 * time.Millisecond, KillGrace: 100 * time.Millisecond})
	s := start(t, a, runtimes.StartRequest{})
	s.send(t, scriptOf(`{"hang":true}`))
	got, _ := s.until(t, isExit)
	assertEvents(t, got, "activity thinking", "failed stall_timeout", "activity idle", "exited -1 stall_timeout")
}
