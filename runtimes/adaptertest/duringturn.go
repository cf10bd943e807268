package adaptertest

// During a turn: Busy, CloseDuringTurn, Permission and Question.

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func (c *suite) busy(t *testing.T) {
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	ctx := c.ctx(t)
	n := s.send(t, c.h.Slow)
	s.rec.await(t, n, "a message delta", isA[runtimes.MessageDelta])
	if err := s.Send(ctx, runtimes.Turn{Prompt: c.h.Text}); !errors.Is(err, runtimes.ErrBusy) {
		t.Errorf("Send during a turn: %v, want ErrBusy", err)
	}
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt during a turn: %v", err)
	}
	// The interrupted turn ends once, either way; then the session serves
	// the next turn.
	s.endTurn(t, n)
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt when idle after an interrupted turn: %v", err)
	}
	evs := s.turn(t, c.h.Text)
	if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
		t.Errorf("the turn after an interrupt ended with %s", describe(evs[len(evs)-1]))
	}
	s.closeIdle(t)
}

func (c *suite) closeDuringTurn(t *testing.T) {
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	n := s.send(t, c.h.Slow)
	s.rec.await(t, n, "a message delta", isA[runtimes.MessageDelta])
	// Several closers at once, as when a client stops a session while the
	// engine reaps it: every one returns once the process is gone.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	ctx := c.ctx(t)
	for i := range errs {
		wg.Go(func() { errs[i] = s.Close(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Close %d: %v", i, err)
		}
	}
	s.checkClosed(t)
	evs := s.rec.since(n)
	if got := count(evs, isTerminal); got != 1 {
		t.Errorf("the turn closed under it has %d terminal events: %s", got, describeAll(evs))
	}
	i := slices.IndexFunc(evs, isTerminal)
	if i < 1 || !isActivity(evs[i-1], rpc.ActivityIdle) {
		t.Errorf("the terminal event does not follow ActivityChanged idle: %s", describeAll(evs))
	}
}

func (c *suite) permission(t *testing.T) {
	if c.h.Permission == "" {
		t.Skip("the harness has no prompt that makes the CLI ask for permission")
	}
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	ctx := c.ctx(t)
	n := s.send(t, c.h.Permission)
	i := s.rec.await(t, n, "a permission prompt", func(ev runtimes.Event) bool {
		p, ok := ev.(runtimes.PromptRequested)
		return ok && p.Permission != nil
	})
	p := s.rec.at(i).(runtimes.PromptRequested)
	if p.RequestID == "" || p.Question != nil || len(p.Permission.Options) == 0 {
		t.Errorf("permission prompt %+v (%+v)", p, p.Permission)
	}
	s.rec.await(t, i+1, "the activity after the prompt", isA[runtimes.ActivityChanged])
	if next := s.rec.at(i + 1); !isActivity(next, rpc.ActivityPermission) {
		t.Errorf("the prompt is followed by %s, want ActivityChanged permission", describe(next))
	}
	if err := s.Respond(ctx, "no-such-request", runtimes.Answer{Decision: runtimes.Deny}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("Respond to an unknown id while a prompt is pending: %v, want ErrNoRequest", err)
	}
	if err := s.Respond(ctx, p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	if err := s.Respond(ctx, p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("a second answer: %v, want ErrNoRequest", err)
	}
	// A PromptCancelled for the answered prompt may follow: the kit
	// withdraws a claimed prompt when the turn ends before Respond returns,
	// and the engine, which removed the prompt when it claimed it, ignores it.
	s.endTurn(t, n)
	s.closeIdle(t)
}

func (c *suite) question(t *testing.T) {
	if c.h.Question == "" {
		t.Skip("the harness has no prompt that makes the CLI ask a question")
	}
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{PermissionMode: c.h.QuestionMode})
	n := s.send(t, c.h.Question)
	i := s.rec.await(t, n, "a question", func(ev runtimes.Event) bool {
		p, ok := ev.(runtimes.PromptRequested)
		return ok && p.Question != nil
	})
	q := s.rec.at(i).(runtimes.PromptRequested)
	if q.RequestID == "" || q.Permission != nil || len(q.Question.Questions) == 0 || len(q.Question.Questions[0].Options) == 0 {
		t.Fatalf("question prompt %+v", q)
	}
	s.rec.await(t, i+1, "the activity after the question", isA[runtimes.ActivityChanged])
	if next := s.rec.at(i + 1); !isActivity(next, rpc.ActivityQuestion) {
		t.Errorf("the question is followed by %s, want ActivityChanged question", describe(next))
	}
	if err := s.Respond(c.ctx(t), q.RequestID, runtimes.Answer{Text: q.Question.Questions[0].Options[0].Key}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	evs := s.endTurn(t, n)
	if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
		t.Errorf("the answered turn ended with %s", describe(evs[len(evs)-1]))
	}
	s.closeIdle(t)
}
