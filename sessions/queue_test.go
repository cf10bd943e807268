package sessions

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func queuePrompts(q rpc.Queue) []string {
	var out []string
	for _, it := range q.Items {
		out = append(out, it.Prompt)
	}
	return out
}

// A failed turn pauses the queue with the turn's error; nothing queued
// runs until a resume, which starts the next prompt at once. Moves keep
// every item once, past the end is last; clearing an emptied queue
// unpauses it.
func TestQueueFailedTurnPausesAndMoves(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	ctx := context.Background()
	send := func(p string) rpc.SessionSendResult {
		t.Helper()
		res, err := e.Send(ctx, w, SendOptions{SessionID: id, Prompt: p})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := send("one"); res.Status != rpc.SendSent {
		t.Fatalf("first send = %+v", res)
	}
	<-ms.turns
	var ids []string
	for i, p := range []string{"a", "b", "c"} {
		res := send(p)
		if res.Status != rpc.SendQueued || res.Position != i+1 {
			t.Fatalf("send %q during a turn = %+v", p, res)
		}
		ids = append(ids, res.QueueID)
	}
	res, err := e.QueueMove(rpc.QueueMoveParams{SessionID: id, QueueID: ids[0], Position: 99})
	if err != nil || !slices.Equal(queuePrompts(res.Queue), []string{"b", "c", "a"}) {
		t.Fatalf("move a past the end = %+v, %v", res, err)
	}
	res, err = e.QueueMove(rpc.QueueMoveParams{SessionID: id, QueueID: ids[2], Position: 1})
	if err != nil || !slices.Equal(queuePrompts(res.Queue), []string{"c", "b", "a"}) {
		t.Fatalf("move c first = %+v, %v", res, err)
	}

	ms.sink(runtimes.TurnFailed{Code: runtimes.CodeRuntimeError, Message: "the model API said 400"})
	w.await(t, rpc.EventPrefix+rpc.EventError)
	st, err := e.State(id)
	if err != nil || st.Queue == nil || !st.Queue.Paused || st.Queue.PauseReason != rpc.PauseFailed ||
		st.Queue.PauseMessage != "the model API said 400" {
		t.Fatalf("state after a failed turn: %+v, %v", st.Queue, err)
	}
	select {
	case p := <-ms.turns:
		t.Fatalf("%q ran after a failed turn", p)
	default:
	}
	if _, err := e.QueueResume(ctx, w, rpc.QueueParams{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	if p := <-ms.turns; p != "c" {
		t.Fatalf("the resumed queue ran %q first, want c", p)
	}
	ms.sink(runtimes.TurnCompleted{})
	if p := <-ms.turns; p != "b" {
		t.Fatalf("then %q, want b", p)
	}
	res, err = e.QueueClear(rpc.QueueParams{SessionID: id})
	if err != nil || len(res.Items) != 0 || res.Paused {
		t.Fatalf("clear = %+v, %v", res, err)
	}
	ms.sink(runtimes.TurnCompleted{})
	if _, err := e.QueueRemove(rpc.QueueItemParams{SessionID: id, QueueID: ids[0]}); !isCode(err, rpc.CodeQueueItemGone) {
		t.Fatalf("remove of a cleared item = %v", err)
	}
}

// A queue's file is 0600 and holds it; a new engine on the same folder
// has it back, paused (restarted); a file that is not a queue is left
// alone.
func TestQueueKeptOnDisk(t *testing.T) {
	dir := t.TempDir()
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.QueueDir = dir })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	ctx := context.Background()
	if _, err := e.Send(ctx, w, SendOptions{SessionID: id, Prompt: "one"}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	for _, p := range []string{"x", "y"} {
		if _, err := e.Send(ctx, w, SendOptions{SessionID: id, Prompt: p}); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, id+".json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("queue file: %v %v", fi, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "not-a-queue.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Close(ctx)

	again := New(Config{Registry: e.reg, Workspaces: e.ws, QueueDir: dir, IdleTimeout: -1})
	defer again.Close(ctx)
	res, err := again.QueueList(rpc.QueueParams{SessionID: id})
	if err != nil || !slices.Equal(queuePrompts(res.Queue), []string{"x", "y"}) || !res.Paused || res.PauseReason != rpc.PauseRestarted {
		t.Fatalf("the queue in the next run = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "not-a-queue.json")); err != nil {
		t.Errorf("a file that is no queue was touched: %v", err)
	}
}
