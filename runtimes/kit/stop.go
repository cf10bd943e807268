package kit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

// Process is what Stopper needs of a session's process (proc.Process).
type Process interface {
	Stop(ctx context.Context) error
	Done() <-chan struct{}
}

// Stopper ends a session's process for a reason, once, from any goroutine:
// the process's own callbacks (a stall, an oversize line) included, which
// must not wait for the process, since its readers would wait for them.
// The first reason given is the one ProcessExited reports.
type Stopper struct {
	mu     sync.Mutex
	reason string
	once   sync.Once
	req    chan struct{}
	done   chan struct{}
}

// NewStopper returns a stopper; Watch starts it.
func NewStopper() *Stopper {
	return &Stopper{req: make(chan struct{}), done: make(chan struct{})}
}

// Watch starts the goroutine that stops p when asked; it ends with p.
func (s *Stopper) Watch(p Process) {
	go func() {
		defer close(s.done)
		select {
		case <-s.req:
			_ = p.Stop(context.Background())
		case <-p.Done():
		}
	}()
}

// Because records why the process is ending, unless a reason already is.
func (s *Stopper) Because(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reason == "" {
		s.reason = reason
	}
}

// Async records reason and has the process stopped, without waiting.
func (s *Stopper) Async(reason string) {
	s.Because(reason)
	s.once.Do(func() { close(s.req) })
}

// Stopping reports whether a reason to end the process was given.
func (s *Stopper) Stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason != ""
}

// Reason is why the process ended: the first reason given, else "exited"
// (it ended by itself).
func (s *Stopper) Reason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reason == "" {
		return "exited"
	}
	return s.reason
}

// Wait returns once the Watch goroutine has ended (after the process).
func (s *Stopper) Wait() { <-s.done }

// Stalled is the stall timer's callback for a session named cli: the turn
// produced no output for too long, so it fails and the process is stopped.
// A turn that ended as the timer fired is no stall.
func Stalled(t *Turn, s *Stopper, cli string) {
	if t.End(runtimes.TurnFailed{Code: runtimes.CodeStallTimeout,
		Message: cli + " produced no output for too long; stopped"}) {
		s.Async(runtimes.CodeStallTimeout)
	}
}

// Oversize is the callback for a line too long to hold: it was dropped, so
// the conversation can no longer be followed faithfully; the turn fails and
// the process is stopped.
func Oversize(t *Turn, s *Stopper, cli string, size int) {
	t.End(runtimes.TurnFailed{Code: runtimes.CodeOutputTooLarge,
		Message: fmt.Sprintf("%s printed a %d-byte line, over the limit; stopped", cli, size)})
	s.Async(runtimes.CodeOutputTooLarge)
}

// InterruptThenStop is the Close of a session whose CLI can abandon a turn:
// a running turn is interrupted first and given up to bound to end as what
// it is (interrupted by the user, not a crash), then the process is
// stopped, gracefully until ctx ends; it returns once the emitter has
// delivered ProcessExited.
func InterruptThenStop(ctx context.Context, t *Turn, s *Stopper, p Process, em *Emitter,
	interrupt func(context.Context) error, bound time.Duration) error {
	s.Because("stopped")
	if t.Busy() {
		ictx, cancel := context.WithTimeout(ctx, bound)
		if err := interrupt(ictx); err == nil {
			t.WaitIdle(ictx)
		}
		cancel()
	}
	err := p.Stop(ctx)
	<-em.Done()
	return err
}

// DiscardOnStop is p whose Stop first calls discard, which has the session
// stop handling the CLI's output (drop what is queued and what still comes,
// release the emitter's WaitRoom). Once cdevd decided to end a process, its
// output changes nothing a client sees (the turn ends as stopped), and an
// agent flooding its stdout must not hold the stop up while cdevd works
// through the backlog: the stop then takes the kill grace at most, whatever
// the agent prints. Give it to Stopper.Watch and InterruptThenStop, so that
// every stop, the user's, the daemon's, a stall's, discards first.
func DiscardOnStop(p Process, discard func()) Process {
	return discarding{p, discard}
}

type discarding struct {
	Process
	discard func()
}

func (d discarding) Stop(ctx context.Context) error {
	d.discard()
	return d.Process.Stop(ctx)
}
