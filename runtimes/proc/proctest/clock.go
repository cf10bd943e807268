// Package proctest has test doubles for package proc: a Clock whose
// timers fire only when a test says so, so stall handling is tested
// without waiting for real time to pass.
package proctest

import (
	"sync"
	"time"

	"github.com/cdevd/cdevd/runtimes/proc"
)

// Clock hands out timers that fire only when the test calls Fire.
type Clock struct {
	mu     sync.Mutex
	timers []*Timer
}

// Timer is one timer of a Clock.
type Timer struct {
	c       *Clock
	f       func()
	stopped bool // guarded by c.mu
}

// AfterFunc implements proc.Clock.
func (c *Clock) AfterFunc(_ time.Duration, f func()) proc.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &Timer{c: c, f: f}
	c.timers = append(c.timers, t)
	return t
}

// Stop implements proc.Timer.
func (t *Timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

// Fire runs the timer's function even if it was stopped: a real timer's
// function may already be running when Stop is called, so code under test
// must ignore a timer it no longer wants.
func (t *Timer) Fire() { t.f() }

// Stopped reports whether Stop was called.
func (t *Timer) Stopped() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.stopped
}

// Count is how many timers were started.
func (c *Clock) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Last is the most recently started timer.
func (c *Clock) Last() *Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers[len(c.timers)-1]
}

// Running lists the timers started and not stopped.
func (c *Clock) Running() []*Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var r []*Timer
	for _, t := range c.timers {
		if !t.stopped {
			r = append(r, t)
		}
	}
	return r
}
