package adaptertest

// Events: a session's recorder, and the matchers and descriptions the
// checks use on what it recorded.

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// recorder keeps a session's events for tests to wait on.
type recorder struct {
	timeout time.Duration

	mu      sync.Mutex
	evs     []runtimes.Event
	changed chan struct{} // closed and replaced on every event
}

func newRecorder(timeout time.Duration) *recorder {
	return &recorder{timeout: timeout, changed: make(chan struct{})}
}

func (r *recorder) sink(ev runtimes.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.evs)
}

func (r *recorder) at(i int) runtimes.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.evs[i]
}

func (r *recorder) all() []runtimes.Event { return r.since(0) }

func (r *recorder) since(i int) []runtimes.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs[i:])
}

// await returns the index of the first event at or after from that
// matches, failing the test when none comes in time.
func (r *recorder) await(t *testing.T, from int, what string, match func(runtimes.Event) bool) int {
	t.Helper()
	deadline := time.NewTimer(r.timeout)
	defer deadline.Stop()
	for i := from; ; {
		r.mu.Lock()
		for ; i < len(r.evs); i++ {
			if match(r.evs[i]) {
				r.mu.Unlock()
				return i
			}
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %s came in %v; events: %s", what, r.timeout, describeAll(r.all()))
		}
	}
}

func isA[T runtimes.Event](ev runtimes.Event) bool { _, ok := ev.(T); return ok }

func isTerminal(ev runtimes.Event) bool {
	return isA[runtimes.TurnCompleted](ev) || isA[runtimes.TurnFailed](ev)
}

func isActivity(ev runtimes.Event, a rpc.Activity) bool {
	ac, ok := ev.(runtimes.ActivityChanged)
	return ok && ac.Activity == a
}

func count(evs []runtimes.Event, match func(runtimes.Event) bool) int {
	n := 0
	for _, ev := range evs {
		if match(ev) {
			n++
		}
	}
	return n
}

func describe(ev runtimes.Event) string {
	switch ev := ev.(type) {
	case runtimes.MessageDelta:
		return fmt.Sprintf("delta(%s %q)", ev.Phase, ev.Text)
	case runtimes.MessageCompleted:
		return fmt.Sprintf("message(%s %s %q)", ev.Message.Type, ev.Message.ID, text(ev.Message))
	case runtimes.ActivityChanged:
		return "activity(" + string(ev.Activity) + ")"
	case runtimes.PromptRequested:
		return "prompt(" + ev.RequestID + ")"
	case runtimes.PromptCancelled:
		return "cancelled(" + ev.RequestID + ")"
	case runtimes.TurnCompleted:
		return "completed(" + ev.StopReason + ")"
	case runtimes.TurnFailed:
		return "failed(" + ev.Code + ": " + ev.Message + ")"
	case runtimes.ProcessExited:
		return fmt.Sprintf("exited(%d %s)", ev.ExitCode, ev.Reason)
	}
	return fmt.Sprintf("%T%+v", ev, ev)
}

func describeAll(evs []runtimes.Event) string {
	parts := make([]string, len(evs))
	for i, ev := range evs {
		parts[i] = describe(ev)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
