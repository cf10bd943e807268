package adaptertest

// A session under test: started, sent to, its turn awaited, closed, and
// checked closed.

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// session is a started session and the events it delivered.
type session struct {
	runtimes.Session
	rec     *recorder
	mark    string
	timeout time.Duration
	// quiet is the index after the last turn's terminal event, from where
	// nothing may come until the next Send or ProcessExited; -1 before the
	// first turn.
	quiet int
}

// start starts a session in e.Dir (unless req names a Dir); it is closed
// when the test ends.
func (c *suite) start(t *testing.T, e Env, req runtimes.StartRequest) *session {
	t.Helper()
	if req.Dir == "" {
		req.Dir = e.Dir
	}
	rec := newRecorder(c.h.Timeout)
	s, err := e.Adapter.Start(c.ctx(t), req, rec.sink)
	if err != nil {
		t.Fatalf("Start(%+v): %v", req, err)
	}
	ss := &session{Session: s, rec: rec, mark: e.Mark, timeout: c.h.Timeout, quiet: -1}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.h.Timeout)
		defer cancel()
		_ = s.Close(ctx)
	})
	return ss
}

// send starts a turn and returns the index of its first event.
func (s *session) send(t *testing.T, prompt string) int {
	t.Helper()
	n := s.rec.len()
	if s.quiet >= 0 && n > s.quiet {
		if outside := withoutReports(s.rec.since(s.quiet)); len(outside) > 0 {
			t.Errorf("events after a turn's terminal event, outside any turn: %s", describeAll(outside))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.Send(ctx, runtimes.Turn{Prompt: prompt}); err != nil {
		t.Fatalf("Send(%q): %v", prompt, err)
	}
	return n
}

// turn runs a whole turn and returns its checked events.
func (s *session) turn(t *testing.T, prompt string) []runtimes.Event {
	t.Helper()
	return s.endTurn(t, s.send(t, prompt))
}

// endTurn waits for the end of the turn whose first event is at from, and
// checks its order: ActivityChanged thinking first, then anything, then
// ActivityChanged idle and exactly one TurnCompleted or TurnFailed, last.
func (s *session) endTurn(t *testing.T, from int) []runtimes.Event {
	t.Helper()
	end := s.rec.await(t, from, "the turn's terminal event", isTerminal)
	all := s.rec.since(from)[:end-from+1]
	s.quiet = end + 1
	evs := withoutReports(all)
	if !isActivity(evs[0], rpc.ActivityThinking) {
		t.Errorf("the turn begins with %s, want ActivityChanged thinking: %s", describe(evs[0]), describeAll(evs))
	}
	if len(evs) < 3 || !isActivity(evs[len(evs)-2], rpc.ActivityIdle) {
		t.Errorf("the terminal event does not follow ActivityChanged idle: %s", describeAll(evs))
	}
	if n := count(evs, isTerminal); n != 1 {
		t.Errorf("%d terminal events in one turn: %s", n, describeAll(evs))
	}
	if n := count(evs, isA[runtimes.ProcessExited]); n != 0 {
		t.Errorf("ProcessExited during a turn that ended normally: %s", describeAll(evs))
	}
	return all
}

// withoutReports is evs without the usage reports (ContextUpdated,
// RateLimitsUpdated): a CLI may send them at any time, also before a turn
// begins (Codex, loading a resumed thread) or between turns, so they are
// not part of a turn's shape.
func withoutReports(evs []runtimes.Event) []runtimes.Event {
	return slices.DeleteFunc(slices.Clone(evs), func(ev runtimes.Event) bool {
		return isA[runtimes.ContextUpdated](ev) || isA[runtimes.RateLimitsUpdated](ev)
	})
}

// closeIdle closes a session that has no turn running: after the last
// turn's terminal event comes ProcessExited alone.
func (s *session) closeIdle(t *testing.T) {
	t.Helper()
	from := s.quiet
	if from < 0 {
		from = s.rec.len()
	}
	s.close(t)
	if evs := withoutReports(s.rec.since(from)); len(evs) != 1 {
		t.Errorf("after the last turn, closing the idle session delivered %s, want ProcessExited alone", describeAll(evs))
	}
}

// close closes the session and checks the contract of a closed one.
func (s *session) close(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	s.checkClosed(t)
}

// checkClosed checks a session whose Close has returned: Done is closed,
// ProcessExited was delivered once and last, no process is left.
func (s *session) checkClosed(t *testing.T) {
	t.Helper()
	select {
	case <-s.Done():
	default:
		t.Error("Done is open after Close returned")
	}
	all := s.rec.all()
	if n := count(all, isA[runtimes.ProcessExited]); n != 1 {
		t.Errorf("%d ProcessExited events after Close returned: %s", n, describeAll(all))
	} else if _, ok := all[len(all)-1].(runtimes.ProcessExited); !ok {
		t.Errorf("ProcessExited is not the last event: %s", describeAll(all))
	}
	if left := leftProcesses(s.mark); len(left) > 0 {
		t.Errorf("processes left after Close returned: %v", left)
	}
}
