package kit

import (
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
)

// Emitter queues events and delivers them to a sink from its own goroutine.
// Emit never blocks on the sink; ProcessExited is the last event delivered
// and anything emitted after it is dropped. The queue is bounded by the
// reader of the CLI's output, which calls WaitRoom before each line
// (emitroom.go): Emit itself runs under adapters' locks and must not wait.
type Emitter struct {
	log *zap.Logger

	mu       sync.Mutex
	queue    []runtimes.Event
	finished bool // ProcessExited is queued
	wake     chan struct{}
	done     chan struct{}
	sink     runtimes.Sink
	once     sync.Once

	inline            bool // the sink is called inside Emit (tests)
	queued, delivered int64
	drained           *sync.Cond // signalled as delivered catches up

	running   bool // Run was called: the queue drains
	released  bool // Release: WaitRoom no longer waits
	maxBytes  int  // WaitRoom waits while more are queued
	bytes     int  // size of the events queued, as eventBytes counts
	peakBytes int
}

// NewEmitter returns an emitter for sink. Nothing is delivered before Run;
// events emitted meanwhile wait, so an adapter can emit while its Start is
// still deciding whether the session exists.
func NewEmitter(sink runtimes.Sink, log *zap.Logger) *Emitter {
	if log == nil {
		log = zap.NewNop()
	}
	e := &Emitter{log: log, sink: sink, wake: make(chan struct{}, 1), done: make(chan struct{}),
		maxBytes: DefaultMaxQueuedBytes}
	e.drained = sync.NewCond(&e.mu)
	return e
}

// NewInlineEmitter returns an emitter that calls sink inside Emit, on the
// caller's goroutine, so that a test replaying a CLI's output sees each
// event exactly where it was emitted among the session's other effects
// (stdin writes, stall timer changes). Adapters never use it: a sink called
// from Send or Respond could block on the engine's locks.
func NewInlineEmitter(sink runtimes.Sink, log *zap.Logger) *Emitter {
	e := NewEmitter(sink, log)
	e.inline = true
	return e
}

// Sync waits until every event emitted before it was delivered: a test
// replaying a CLI's output line by line checks the events of each line.
// It must not be called from the sink, nor before Run.
func (e *Emitter) Sync() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for target := e.queued; e.delivered < target; {
		e.drained.Wait()
	}
}

// Run starts delivery on the emitter's goroutine, which ends after
// ProcessExited. An emitter never Run (its session failed to start) holds
// no goroutine. Safe to call more than once.
func (e *Emitter) Run() {
	if !e.inline {
		e.once.Do(func() {
			e.mu.Lock()
			e.running = true
			e.mu.Unlock()
			go e.deliver(e.sink)
		})
	}
}

// Emit queues events in order.
func (e *Emitter) Emit(evs ...runtimes.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range evs {
		if e.finished {
			e.log.Warn("event after ProcessExited dropped", zap.String("event", fmt.Sprintf("%T", ev)))
			continue
		}
		_, last := ev.(runtimes.ProcessExited)
		e.finished = last
		if e.inline {
			e.sink(ev)
			if last {
				close(e.done)
			}
			continue
		}
		e.queue = append(e.queue, ev)
		e.queued++
		e.bytes += eventBytes(ev)
		e.peakBytes = max(e.peakBytes, e.bytes)
	}
	select {
	case e.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Finished reports whether ProcessExited has been emitted.
func (e *Emitter) Finished() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.finished
}

// Done is closed once ProcessExited was delivered.
func (e *Emitter) Done() <-chan struct{} { return e.done }

func (e *Emitter) deliver(sink runtimes.Sink) {
	defer close(e.done)
	for range e.wake {
		e.mu.Lock()
		batch, finished := e.queue, e.finished
		e.queue = nil
		e.mu.Unlock()
		size := 0
		for _, ev := range batch {
			sink(ev)
			size += eventBytes(ev)
		}
		e.mu.Lock()
		e.delivered += int64(len(batch))
		e.bytes -= size
		e.drained.Broadcast()
		e.mu.Unlock()
		if finished {
			return
		}
	}
}
