package sessions

// A session's process: stop, the idle reaper and --max-processes, a CLI
// that dies at once, a quiet exit.

import (
	"context"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func TestStopEndsTurnWithSessionStopped(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "long", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.PromptRequested{RequestID: "q", Question: &runtimes.QuestionPrompt{}})
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	w.await(t, "event/session_stopped")
	if w.count("event/error")+w.count("event/turn_completed") != 0 {
		t.Fatal("stop must end the turn with session_stopped only")
	}
	if ev := w.await(t, "event/pty_permission_resolved"); ev["decision"] != "cancelled" {
		t.Fatalf("pending prompt not cancelled: %v", ev)
	}
	st, _ := e.State(id)
	if st.Status != rpc.StatusStopped || st.IsRunning {
		t.Fatalf("after stop: %+v", st)
	}
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if n := w.count("event/session_stopped"); n != 1 {
		t.Fatalf("%d session_stopped events", n)
	}
}

func TestIdleProcessReapedAndCapEnforced(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.MaxProcesses = 1 })
	w := newRecorder("c1")
	id1, ms1 := start(t, e, a, w, wsID)
	id2, _ := start(t, e, a, w, wsID) // over the cap: the idle first one is ended
	select {
	case <-ms1.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("idle process was not reaped when the cap was reached")
	}
	if st, _ := e.State(id1); st.Status != rpc.StatusRunning || st.IsRunning {
		t.Fatalf("reaped session must stay resumable: %+v", st)
	}
	if w.count("event/session_end") != 0 {
		t.Fatal("reaping an idle process is not a session end")
	}
	_ = id2
	if e.Running() != 1 {
		t.Fatalf("%d processes running, cap is 1", e.Running())
	}
}

func TestIdleProcessEndsAfterIdleTimeout(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.IdleTimeout = time.Millisecond })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.TurnCompleted{StopReason: "end_turn"}) // idle from here on
	select {
	case <-ms.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("idle process was not ended")
	}
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "again", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	if again := <-a.started; !again.resume {
		t.Fatal("the next send did not resume the session")
	}
}

func TestProcessDeadBeforeStartReturns(t *testing.T) {
	a := newMem()
	a.dieEarly = true
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	if _, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID}); !isCode(err, rpc.CodeInternalError) {
		t.Fatalf("start of a CLI that died at once = %v, want -32603", err)
	}
	<-a.started
	a.mu.Lock()
	a.dieEarly = false
	a.mu.Unlock()
	id, _ := start(t, e, a, w, wsID)
	if st, _ := e.State(id); !st.IsRunning {
		t.Fatalf("a later start is not stuck: %+v", st)
	}
}

func TestQuietExitWhileIdleIsStopped(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c")
	id, ms := start(t, e, a, w, wsID)
	ms.exit(0)
	w.await(t, "event/session_end")
	if st, _ := e.State(id); st.Status != rpc.StatusStopped || st.IsRunning {
		t.Fatalf("after a quiet exit: %+v", st)
	}
}
