package adaptertest

// Faults: one turn of a real CLI whose model API fails (answers 401, 429,
// 500, or refuses connections), as a user of cdevd sees it: the turn ends,
// in bounded time, with one error event; nothing of the failure is
// streamed as an answer; retries the CLI makes on its own are shown.

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Fault is one failing turn to run.
type Fault struct {
	Adapter runtimes.Adapter
	Dir     string // the session's workspace
	Prompt  string
	// Within bounds the turn, from the send to its terminal event: what a
	// user would accept before being told that the turn cannot go on.
	Within time.Duration
	// AtEnd, when set, is called with the terminal event as it is
	// delivered, before anything after it (a test reads the registry's
	// record there: what a client sees when it hears of the failure).
	AtEnd func(runtimes.Event)
	// Next, when set, is sent after the failure: its turn must complete
	// (the session outlived the failure; the API answers it).
	Next string
}

// FaultEnd is what the turn showed.
type FaultEnd struct {
	Failed  runtimes.TurnFailed
	Retries []rpc.Retry   // the retry notices shown while the turn ran, in order
	Took    time.Duration // from the send to the terminal event
	Events  []runtimes.Event
}

// RunFault starts a session, sends f.Prompt, waits (at most f.Within, plus
// a margin for a loaded machine to tell a slow end from none) for the
// turn's terminal event, closes the session and checks what every runtime
// owes a user there: exactly one terminal event, a TurnFailed; no answer
// streamed (no assistant delta or message: the CLI's words for the failure
// are the error's, not an answer's); the end within f.Within. With
// f.Next, the next turn must complete (a second terminal event of the
// failed turn would be taken for the next turn's, and fail that check).
func RunFault(t *testing.T, f Fault) FaultEnd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), f.Within+time.Minute)
	defer cancel()
	rec := newRecorder(f.Within + time.Minute)
	var (
		mu   sync.Mutex // sent and took: the sink runs on the adapter's goroutine
		sent time.Time
		took time.Duration
	)
	sink := func(ev runtimes.Event) {
		mu.Lock()
		if isTerminal(ev) && took == 0 && !sent.IsZero() {
			took = time.Since(sent)
			if f.AtEnd != nil {
				f.AtEnd(ev)
			}
		}
		mu.Unlock()
		rec.sink(ev)
	}
	s, err := f.Adapter.Start(ctx, runtimes.StartRequest{Dir: f.Dir}, sink)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	closed := false
	closeSession := func() {
		if closed {
			return
		}
		closed = true
		cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer ccancel()
		if err := s.Close(cctx); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	defer closeSession()
	mu.Lock()
	sent = time.Now()
	mu.Unlock()
	if err := s.Send(ctx, runtimes.Turn{Prompt: f.Prompt}); err != nil {
		t.Fatalf("send: %v", err)
	}
	end := rec.await(t, 0, "terminal event", isTerminal)
	if f.Next != "" {
		if err := s.Send(ctx, runtimes.Turn{Prompt: f.Next}); err != nil {
			t.Fatalf("send after the failure: %v", err)
		}
		next := rec.await(t, end+1, "terminal event of the next turn", isTerminal)
		if !isA[runtimes.TurnCompleted](rec.at(next)) {
			t.Errorf("the turn after the failure ended with %s", describe(rec.at(next)))
		}
	}
	// Close, then read: every event the session will ever deliver is in.
	closeSession()
	evs := rec.all()
	if f.Next != "" {
		evs = evs[:end+1] // the failed turn's
	}
	mu.Lock()
	out := FaultEnd{Took: took, Events: evs}
	mu.Unlock()
	if n := count(evs, isTerminal); n != 1 {
		t.Errorf("%d terminal events, want 1: %s", n, describeAll(evs))
	}
	failed, ok := evs[end].(runtimes.TurnFailed)
	if !ok {
		t.Fatalf("the turn ended with %s, want a TurnFailed", describe(evs[end]))
	}
	out.Failed = failed
	for _, ev := range evs {
		switch ev := ev.(type) {
		case runtimes.MessageDelta:
			t.Errorf("an answer was streamed: %s", describe(ev))
		case runtimes.MessageCompleted:
			if ev.Message.Message.Role == "assistant" {
				t.Errorf("an answer was completed: %s", describe(ev))
			}
		case runtimes.ActivityChanged:
			if ev.Retry != nil {
				out.Retries = append(out.Retries, *ev.Retry)
			}
		}
	}
	if out.Took > f.Within {
		t.Errorf("the turn ended after %v, want within %v", out.Took.Round(time.Millisecond), f.Within)
	}
	t.Logf("ended after %v: %s (%d retries shown)", out.Took.Round(time.Millisecond), describe(failed), len(out.Retries))
	return out
}

// CheckRecordAfterFault checks rec, runtime id's registry record when a
// turn's failure with code was delivered: an auth_required turn disables
// the runtime with the API's words (401) and fix, though its detection (a
// key is set) still says logged in, and a new session is no longer routed
// to it; any other fault leaves it active and routed.
func CheckRecordAfterFault(t *testing.T, reg *registry.Registry, id, code string, rec rpc.Runtime, fix string) {
	t.Helper()
	_, routeErr := reg.Route(context.Background(), rpc.MethodSessionStart, id)
	if code == runtimes.CodeAuthRequired {
		if rec.Status != rpc.RuntimeDisabled || rec.Availability.Login != rpc.LoggedOut ||
			!strings.Contains(rec.Availability.Reason, "401") || !strings.Contains(rec.Availability.Reason, fix) {
			t.Errorf("record when the failure was delivered: %s %+v", rec.Status, rec.Availability)
		}
		if routeErr == nil {
			t.Error("session/start routed to a runtime whose key was refused")
		}
		t.Logf("after a 401: status %s, availability %+v", rec.Status, rec.Availability)
		return
	}
	if rec.Status != rpc.RuntimeActive || rec.Availability.Login != rpc.LoggedIn {
		t.Errorf("a %s turn changed the record: %s %+v", code, rec.Status, rec.Availability)
	}
	if routeErr != nil {
		t.Errorf("after a %s turn, session/start is not routed: %v", code, routeErr)
	}
}
