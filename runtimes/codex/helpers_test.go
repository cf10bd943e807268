package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

// waitFor bounds every wait for an event; generous for a loaded machine.
const waitFor = 60 * time.Second

// events collects a session's events and wakes waiters on each one.
type events struct {
	mu      sync.Mutex
	list    []runtimes.Event
	changed chan struct{}
}

func newEvents() *events { return &events{changed: make(chan struct{})} }

func (e *events) add(ev runtimes.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
	close(e.changed)
	e.changed = make(chan struct{})
}

// wait is closed by the next event.
func (e *events) wait() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.changed
}

func (e *events) all() []runtimes.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]runtimes.Event(nil), e.list...)
}

// since are the events after the first n.
func (e *events) since(n int) []runtimes.Event { return e.all()[n:] }

func (e *events) len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.list)
}

// awaitFrom waits for the first event of type T at or after index from that
// matches (nil matches any), failing the test at the deadline.
func awaitFrom[T runtimes.Event](t *testing.T, e *events, from int, match func(T) bool) T {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		for _, ev := range e.list[min(from, len(e.list)):] {
			if v, ok := ev.(T); ok && (match == nil || match(v)) {
				e.mu.Unlock()
				return v
			}
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			var zero T
			t.Fatalf("no %T within %v; got: %s", zero, waitFor, describe(e.all()))
			return zero
		}
	}
}

func await[T runtimes.Event](t *testing.T, e *events, match func(T) bool) T {
	t.Helper()
	return awaitFrom(t, e, 0, match)
}

// terminalFrom waits for the turn's terminal event after index from.
func terminalFrom(t *testing.T, e *events, from int) runtimes.Event {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		for _, ev := range e.list[min(from, len(e.list)):] {
			switch ev.(type) {
			case runtimes.TurnCompleted, runtimes.TurnFailed:
				e.mu.Unlock()
				return ev
			}
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("no terminal event within %v; got: %s", waitFor, describe(e.all()))
			return nil
		}
	}
}

func count[T runtimes.Event](evs []runtimes.Event) int {
	n := 0
	for _, ev := range evs {
		if _, ok := ev.(T); ok {
			n++
		}
	}
	return n
}

func describe(evs []runtimes.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "\n  %T %+v", ev, ev)
	}
	return b.String()
}

func send(t *testing.T, s runtimes.Session, prompt string) {
	t.Helper()
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: prompt}); err != nil {
		t.Fatalf("send %q: %v", prompt, err)
	}
}

// closeSession stops s and checks that nothing of its process group is left.
func closeSession(t *testing.T, s runtimes.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
	if ss, ok := s.(*session); ok && !gone(ss.p.Pid()) {
		t.Errorf("process group %d is still alive after Close", ss.p.Pid())
	}
}

// gone reports whether no process of group pgid is left running. Zombies
// do not count: a test that SIGKILLs a whole group, supervisor included,
// leaves its members to be reaped by whoever adopts them.
func gone(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return true
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" {
			return false
		}
	}
	return true
}
