package sessions

// Turns and prompts: one terminal event per turn, prompts re-sent and
// answered once, escape, answers to withdrawn prompts.

import (
	"context"
	"sync"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func TestExactlyOneTerminalEventPerTurn(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "again", SessionID: id, NoQueue: true}); !isCode(err, rpc.CodeSessionBusy) {
		t.Fatalf("second send during a turn, not to be queued = %v, want session busy", err)
	}
	ms.sink(runtimes.TurnCompleted{StopReason: "end_turn"})
	ms.sink(runtimes.TurnFailed{Code: "runtime_error", Message: "late"}) // a confused runtime
	ms.sink(runtimes.TurnCompleted{StopReason: "dup"})
	w.await(t, "event/turn_completed")
	if n := w.count("event/turn_completed") + w.count("event/error"); n != 1 {
		t.Fatalf("%d terminal events for one turn", n)
	}
	// A crash mid-turn ends the turn with one error, then session_end.
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "crash", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.exit(3)
	w.await(t, "event/session_end")
	if n := w.count("event/error"); n != 1 {
		t.Fatalf("crash produced %d error events, want 1", n)
	}
	st, _ := e.State(id)
	if st.Status != rpc.StatusError || st.IsRunning {
		t.Fatalf("after crash: %+v", st)
	}
	// The next send resumes the session in a new process.
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "back", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	if again := <-a.started; !again.resume {
		t.Fatal("process restarted without resuming the session")
	}
	assertSeqsContiguous(t, w.events())
}

func TestPromptResentToNewWatcherAndAnsweredOnce(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	c1, c2 := newRecorder("c1"), newRecorder("c2")
	id, ms := start(t, e, a, c1, wsID)
	if _, err := e.Send(context.Background(), c1, SendOptions{Prompt: "do it", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.PromptRequested{RequestID: "r1", Permission: &runtimes.PermissionPrompt{
		Kind: rpc.PermBash, ToolName: "Bash", Target: "ls"}})
	c1.await(t, "event/pty_permission")
	if _, _, err := e.Watch(context.Background(), c2, wsID, id, "", nil, ""); err != nil {
		t.Fatal(err)
	}
	if ev := c2.await(t, "event/pty_permission"); ev["request_id"] != "r1" {
		t.Fatalf("re-sent prompt = %v", ev)
	}
	st, _ := e.State(id)
	if !st.WaitingForInput || len(st.Pending) != 1 {
		t.Fatalf("state while pending: %+v", st)
	}
	// Two clients answer at once: exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, w := range []*recorder{c1, c2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.Respond(context.Background(), w, id, "", rpc.RespondPermission, "r1", "yes")
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("both or neither answer won: %v", errs)
	}
	loser := errs[0]
	if loser == nil {
		loser = errs[1]
	}
	if !isCode(loser, rpc.CodeRequestNotFound) {
		t.Fatalf("losing answer = %v", loser)
	}
	if got := <-ms.answers; got.Decision != runtimes.Allow {
		t.Fatalf("runtime got %+v", got)
	}
	for _, w := range []*recorder{c1, c2} {
		if ev := w.await(t, "event/pty_permission_resolved"); ev["decision"] != "allow" {
			t.Fatalf("resolved = %v", ev)
		}
	}
	if len(ms.answers) != 0 {
		t.Fatal("runtime was answered twice")
	}
}

func TestEscapeInterruptsARunningTurn(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if err := e.Input(context.Background(), w, id, "", "escape"); !isCode(err, rpc.CodeRequestNotFound) {
		t.Fatalf("escape with no turn and no prompt = %v", err)
	}
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "long", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	if err := e.Input(context.Background(), w, id, "", "escape"); err != nil {
		t.Fatal(err)
	}
	if ev := w.await(t, "event/error"); ev["code"] != runtimes.CodeInterrupted {
		t.Fatalf("terminal event = %v", ev)
	}
	if st, _ := e.State(id); !st.IsRunning || st.Activity != rpc.ActivityIdle {
		t.Fatalf("after interrupt the process stays, idle: %+v", st)
	}
}

func TestAnswerToAWithdrawnPromptResolvesIt(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "go", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.PromptRequested{RequestID: "gone", Permission: &runtimes.PermissionPrompt{ToolName: "Bash"}})
	w.await(t, "event/pty_permission")
	if err := e.Respond(context.Background(), w, id, "", rpc.RespondPermission, "gone", "yes"); !isCode(err, rpc.CodeRequestNotFound) {
		t.Fatalf("answer to a withdrawn prompt = %v", err)
	}
	if ev := w.await(t, "event/pty_permission_resolved"); ev["decision"] != "cancelled" {
		t.Fatalf("resolved = %v", ev)
	}
	if st, _ := e.State(id); st.WaitingForInput || len(st.Pending) != 0 {
		t.Fatalf("the withdrawn prompt still waits: %+v", st)
	}
	if err := e.Respond(context.Background(), w, id, "", rpc.RespondPermission, "", "maybe"); !isCode(err, rpc.CodeRequestNotFound) {
		t.Fatalf("nothing pending: %v", err)
	}
}
