package claude

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// These tests (live_*_test.go) run the real Claude Code CLI against the
// fake API. Here: their harness, and Detect.

// live is one test's CLI environment: the fake API, a workspace, an adapter.
type live struct {
	t       *testing.T
	fake    *fakeanthropic.Server
	dir     string
	adapter *Adapter
}

func newLive(t *testing.T) *live {
	t.Helper()
	fake := fakeanthropic.New(t)
	bin := claudetest.Bin(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &live{t: t, fake: fake, dir: dir, adapter: New(Config{
		Bin:       bin,
		Env:       claudetest.Env(t, fake.URL()),
		KillGrace: 2 * time.Second,
		Logger:    zaptest.NewLogger(t),
	})}
}

// start starts a session that is closed when the test ends.
func (l *live) start(req runtimes.StartRequest) (*session, *events) {
	l.t.Helper()
	if req.Dir == "" {
		req.Dir = l.dir
	}
	evs := newEvents()
	sess, err := l.adapter.Start(claudetest.Context(l.t), req, evs.add)
	if err != nil {
		l.t.Fatalf("start: %v", err)
	}
	l.t.Cleanup(func() { closeSession(l.t, sess) })
	return sess.(*session), evs
}

func closeSession(t *testing.T, s runtimes.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
}

// events records a session's events for tests to wait on, in order.
type events struct {
	mu      sync.Mutex
	list    []runtimes.Event
	changed chan struct{} // closed and replaced on every event
	next    int           // the position await searches from
}

func newEvents() *events { return &events{changed: make(chan struct{})} }

func (e *events) add(ev runtimes.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *events) all() []runtimes.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]runtimes.Event(nil), e.list...)
}

// await returns the first event after the previous await's that matches,
// failing the test if none comes in time.
func await[T runtimes.Event](t *testing.T, e *events, match func(T) bool) T {
	t.Helper()
	deadline := time.NewTimer(claudetest.Timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		for ; e.next < len(e.list); e.next++ {
			if ev, ok := e.list[e.next].(T); ok && (match == nil || match(ev)) {
				e.next++
				e.mu.Unlock()
				return ev
			}
		}
		changed := e.changed
		e.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			var zero T
			t.Fatalf("no %T event came; got %s", zero, describe(e.all()))
		}
	}
}

func describe(evs []runtimes.Event) string {
	var parts []string
	for _, ev := range evs {
		parts = append(parts, fmt.Sprintf("%T%+v", ev, ev))
	}
	return strings.Join(parts, "\n  ")
}

// terminal awaits the event that ends the turn.
func terminal(t *testing.T, e *events) runtimes.Event {
	t.Helper()
	return await(t, e, func(ev runtimes.Event) bool {
		switch ev.(type) {
		case runtimes.TurnCompleted, runtimes.TurnFailed:
			return true
		}
		return false
	})
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

func send(t *testing.T, s runtimes.Session, prompt string) {
	t.Helper()
	if err := s.Send(claudetest.Context(t), runtimes.Turn{Prompt: prompt}); err != nil {
		t.Fatalf("send %q: %v", prompt, err)
	}
}

// gone reports whether no process of pid's group is left.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH)
}

func TestLiveDetect(t *testing.T) {
	l := newLive(t)
	av := l.adapter.Detect(context.Background())
	if !av.Usable() || av.Version != "2.1.197" || av.Path == "" {
		t.Errorf("detect = %+v", av)
	}
}
