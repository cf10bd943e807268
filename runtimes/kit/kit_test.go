package kit

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/runtimes"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// collect runs an emitter into a slice, returned once ProcessExited was
// delivered.
type collect struct {
	mu  sync.Mutex
	evs []string
}

func (c *collect) sink(ev runtimes.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evs = append(c.evs, describe(ev))
}

func describe(ev runtimes.Event) string {
	switch ev := ev.(type) {
	case runtimes.ActivityChanged:
		return "activity " + string(ev.Activity)
	case runtimes.PromptRequested:
		return "prompt " + ev.RequestID
	case runtimes.PromptCancelled:
		return "cancelled " + ev.RequestID
	case runtimes.TurnCompleted:
		return "completed " + ev.StopReason
	case runtimes.TurnFailed:
		return "failed " + ev.Code
	case runtimes.ProcessExited:
		return fmt.Sprintf("exited %d %s", ev.ExitCode, ev.Reason)
	case runtimes.MessageDelta:
		return "delta " + ev.Text
	}
	return fmt.Sprintf("%T", ev)
}

type stall struct{ log *[]string }

func (s stall) ArmStall()    { *s.log = append(*s.log, "armed") }
func (s stall) DisarmStall() { *s.log = append(*s.log, "disarmed") }

func newTurn() (*Turn, *Emitter, *collect, *[]string) {
	c := &collect{}
	em := NewEmitter(c.sink, nil)
	var stalls []string
	t := NewTurn(em, stall{&stalls})
	em.Run()
	return t, em, c, &stalls
}

func finish(t *testing.T, tu *Turn, em *Emitter, c *collect) []string {
	t.Helper()
	tu.Exit(0, "", "gone")
	select {
	case <-em.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done never closed after ProcessExited")
	}
	return c.evs
}

func TestTurnEndsExactlyOnce(t *testing.T) {
	tu, em, c, stalls := newTurn()
	if err := tu.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := tu.Begin(); !errors.Is(err, runtimes.ErrBusy) {
		t.Fatalf("second Begin = %v, want ErrBusy", err)
	}
	if !tu.End(runtimes.TurnCompleted{StopReason: "end_turn"}) {
		t.Fatal("End of the running turn reported false")
	}
	if tu.End(runtimes.TurnFailed{Code: runtimes.CodeStallTimeout}) {
		t.Fatal("a turn ended twice")
	}
	got := finish(t, tu, em, c)
	want := []string{"activity thinking", "activity idle", "completed end_turn", "exited 0 exited"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	if want := []string{"armed", "disarmed"}; !reflect.DeepEqual(*stalls, want) {
		t.Fatalf("stall timer %q, want %q", *stalls, want)
	}
	if err := tu.Begin(); !errors.Is(err, runtimes.ErrExited) {
		t.Fatalf("Begin after Exit = %v, want ErrExited", err)
	}
}

func TestExitFailsTheTurnAndWithdrawsPrompts(t *testing.T) {
	tu, em, c, _ := newTurn()
	_ = tu.Begin()
	tu.Prompt(runtimes.PromptRequested{RequestID: "p1", Permission: &runtimes.PermissionPrompt{}}, nil)
	tu.Exit(137, "", "killed")
	tu.Exit(0, "again", "") // nothing more
	em.Emit(runtimes.MessageDelta{Text: "late"})
	<-em.Done()
	want := []string{"activity thinking", "prompt p1", "activity permission", "cancelled p1",
		"activity idle", "failed cli_exited", "exited 137 exited"}
	if !reflect.DeepEqual(c.evs, want) {
		t.Fatalf("events %q, want %q", c.evs, want)
	}
}

func TestPromptsClaimAnswerCancel(t *testing.T) {
	tu, em, c, stalls := newTurn()
	_ = tu.Begin()
	q := runtimes.PromptRequested{RequestID: "q", Question: &runtimes.QuestionPrompt{}}
	if !tu.Prompt(q, "data-q") {
		t.Fatal("prompt refused")
	}
	if tu.Prompt(q, "dup") {
		t.Fatal("a second prompt with an open id was accepted")
	}
	if tu.Prompt(runtimes.PromptRequested{}, nil) {
		t.Fatal("a prompt without an id was accepted")
	}
	if _, err := tu.Claim("nope"); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Fatalf("Claim of an unknown id = %v", err)
	}
	data, err := tu.Claim("q")
	if err != nil || data != "data-q" {
		t.Fatalf("Claim = %v, %v", data, err)
	}
	if _, err := tu.Claim("q"); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Fatal("a prompt was claimed twice")
	}
	if tu.Cancel("q") {
		t.Fatal("a prompt being answered was cancelled (a CLI's resolved notice for our own answer)")
	}
	tu.Unclaim("q") // the write failed
	if _, err := tu.Claim("q"); err != nil {
		t.Fatalf("Claim after Unclaim = %v", err)
	}
	tu.Answered("q")
	tu.Prompt(runtimes.PromptRequested{RequestID: "p", Permission: &runtimes.PermissionPrompt{}}, nil)
	if !tu.Cancel("p") {
		t.Fatal("Cancel of an open prompt reported false")
	}
	tu.End(runtimes.TurnCompleted{})
	got := finish(t, tu, em, c)
	want := []string{"activity thinking", "prompt q", "activity question", "activity thinking",
		"prompt p", "activity permission", "cancelled p", "activity thinking",
		"activity idle", "completed ", "exited 0 exited"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	// Armed by Begin; off while each prompt waits; on again after it.
	want = []string{"armed", "disarmed", "armed", "disarmed", "armed", "disarmed"}
	if !reflect.DeepEqual(*stalls, want) {
		t.Fatalf("stall timer %q, want %q", *stalls, want)
	}
}

func TestInterruptedTurnDoesNotGoBackToWork(t *testing.T) {
	tu, em, c, _ := newTurn()
	if running, err := tu.Interrupting(); running || err != nil {
		t.Fatalf("Interrupting while idle = %v, %v", running, err)
	}
	_ = tu.Begin()
	tu.Prompt(runtimes.PromptRequested{RequestID: "p", Permission: &runtimes.PermissionPrompt{}}, nil)
	if running, _ := tu.Interrupting(); !running || !tu.Interrupted() {
		t.Fatal("the running turn is not marked interrupted")
	}
	tu.Cancel("p") // the CLI withdraws it as it stops
	tu.End(runtimes.TurnFailed{Code: runtimes.CodeInterrupted})
	got := finish(t, tu, em, c)
	want := []string{"activity thinking", "prompt p", "activity permission", "cancelled p",
		"activity idle", "failed interrupted", "exited 0 exited"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

func TestAbandonGoesIdleWithoutATerminalEvent(t *testing.T) {
	tu, em, c, _ := newTurn()
	_ = tu.Begin()
	tu.Abandon()
	if tu.Busy() {
		t.Fatal("busy after Abandon")
	}
	got := finish(t, tu, em, c)
	if want := []string{"activity thinking", "activity idle", "exited 0 exited"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

// Events emitted from many goroutines are delivered one at a time, each
// goroutine's in its order, and Sync waits for all of them.
func TestEmitterOrderAndSync(t *testing.T) {
	var mu sync.Mutex
	got := map[int][]int{}
	inSink := 0
	em := NewEmitter(func(ev runtimes.Event) {
		mu.Lock()
		inSink++
		if inSink > 1 {
			t.Error("the sink ran twice at once")
		}
		mu.Unlock()
		if d, ok := ev.(runtimes.MessageDelta); ok {
			var g, i int
			fmt.Sscanf(d.Text, "%d/%d", &g, &i)
			mu.Lock()
			got[g] = append(got[g], i)
			mu.Unlock()
		}
		mu.Lock()
		inSink--
		mu.Unlock()
	}, nil)
	em.Run()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				em.Emit(runtimes.MessageDelta{Text: fmt.Sprintf("%d/%d", g, i)})
			}
		}()
	}
	wg.Wait()
	em.Sync()
	mu.Lock()
	for g := range 4 {
		if len(got[g]) != 500 {
			t.Fatalf("goroutine %d: %d events delivered after Sync, want 500", g, len(got[g]))
		}
		for i, v := range got[g] {
			if v != i {
				t.Fatalf("goroutine %d: event %d delivered as %d", g, i, v)
			}
		}
	}
	mu.Unlock()
	em.Emit(runtimes.ProcessExited{})
	<-em.Done()
	if !em.Finished() {
		t.Fatal("not finished after ProcessExited")
	}
}

// A turn that ends while a prompt's answer is being written does not
// report that prompt cancelled (its answer went out).
func TestEndDoesNotCancelAPromptBeingAnswered(t *testing.T) {
	tu, em, c, _ := newTurn()
	_ = tu.Begin()
	tu.Prompt(runtimes.PromptRequested{RequestID: "a", Permission: &runtimes.PermissionPrompt{}}, nil)
	tu.Prompt(runtimes.PromptRequested{RequestID: "b", Permission: &runtimes.PermissionPrompt{}}, nil)
	if _, err := tu.Claim("a"); err != nil {
		t.Fatal(err)
	}
	tu.End(runtimes.TurnCompleted{})
	tu.Answered("a") // the write returned after the turn ended
	got := finish(t, tu, em, c)
	want := []string{"activity thinking", "prompt a", "activity permission", "prompt b", "activity permission",
		"cancelled b", "activity idle", "completed ", "exited 0 exited"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

// Answer: a refused answer leaves the prompt open; an accepted one puts the
// turn back to work before the CLI is sent anything, so that the CLI's
// reaction cannot come first.
func TestAnswerGoesBackToWorkBeforeSending(t *testing.T) {
	tu, em, c, _ := newTurn()
	_ = tu.Begin()
	tu.Prompt(runtimes.PromptRequested{RequestID: "p", Permission: &runtimes.PermissionPrompt{}}, "tool")
	refused := errors.New("not a decision")
	err := tu.Answer("p", func(any) (any, error) { return nil, refused }, func(any) error {
		t.Fatal("a refused answer was sent")
		return nil
	})
	if !errors.Is(err, refused) {
		t.Fatalf("Answer = %v, want the build error", err)
	}
	err = tu.Answer("p", func(data any) (any, error) { return data.(string) + ":yes", nil }, func(msg any) error {
		em.Sync()
		c.mu.Lock()
		last := c.evs[len(c.evs)-1]
		c.mu.Unlock()
		if msg != "tool:yes" || last != "activity thinking" {
			t.Errorf("sent %v after %q, want tool:yes after thinking", msg, last)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tu.Answer("p", nil, nil); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Fatalf("a second answer = %v, want ErrNoRequest", err)
	}
	finish(t, tu, em, c)
}
