package kit

import "github.com/cdevd/cdevd/runtimes"

// DefaultMaxQueuedBytes bounds the events an Emitter holds for its sink, as
// eventBytes counts them, before WaitRoom waits. The sink (the engine)
// numbers, records and fans out each event without blocking, so it falls
// behind only under a flood; 4 MiB, like stdiorpc's inbox, is thousands of
// ordinary events.
const DefaultMaxQueuedBytes = 4 << 20

// eventOverhead is what an event costs besides its text: the queue slot
// and the frame's fields. It makes a flood of small events count too.
const eventOverhead = 64

// eventBytes estimates what an event holds: its text, where it has some.
func eventBytes(ev runtimes.Event) int {
	switch ev := ev.(type) {
	case runtimes.MessageDelta:
		return eventOverhead + len(ev.Text)
	case runtimes.MessageCompleted:
		n := eventOverhead
		for _, c := range ev.Message.Message.Content {
			n += len(c.Text) + len(c.Thinking) + len(c.Input) + len(c.Content) + len(c.Source)
		}
		return n
	}
	return eventOverhead
}

// WaitRoom waits while more than DefaultMaxQueuedBytes of events wait for
// the sink. The reader of the CLI's output calls it before handling a line,
// holding no lock, so that a CLI printing faster than the sink takes
// events blocks on its pipe instead of growing the queue. It does not wait
// before Run (nothing drains yet: a start still decides whether the session
// exists), after ProcessExited was emitted, after Release, or inline.
func (e *Emitter) WaitRoom() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for e.bytes > e.maxBytes && e.running && !e.finished && !e.released {
		e.drained.Wait()
	}
}

// Release makes WaitRoom return at once, now and later: the process is
// being stopped, and its reader must drain its output rather than wait for
// the sink.
func (e *Emitter) Release() {
	e.mu.Lock()
	e.released = true
	e.mu.Unlock()
	e.drained.Broadcast()
}

// Queued reports the bytes of events queued for the sink and the most
// there have been.
func (e *Emitter) Queued() (bytes, peak int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.bytes, e.peakBytes
}
