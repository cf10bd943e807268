package contracttests

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
)

// For every runtime, with its real CLI: prompts sent while a turn runs are
// queued (a second client sees the queue change), and drain one per turn,
// in order, once the turn ends: the model receives them in that order.
func TestQueueDrainsInOrder(t *testing.T) {
	for _, rt := range scenarioRuntimes {
		t.Run(rt.id, func(t *testing.T) {
			r := newQueueRig(t, rt)
			ctx := queueCtx(t, rt)
			c, _ := Connect(t, ctx, r.url, r.token)
			other, _ := Connect(t, ctx, r.url, r.token)
			w := (&scenarioRig{}).workspace(t, ctx, c)
			var st rpc.SessionStartResult
			c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: rt.id}, &st)
			id := st.SessionID
			other.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: rt.id}, nil)

			if res := r.send(t, ctx, c, id, "hold one"); res.Status != rpc.SendSent {
				t.Fatalf("session/send to an idle session = %+v", res)
			}
			r.hold.awaitArrival(t, ctx, "hold one")
			r.queued(t, ctx, c, id, "two", 1)
			r.queued(t, ctx, other, id, "three", 2)
			seen := awaitQueue(t, ctx, other, id, func(q rpc.Queue) bool { return len(q.Items) == 2 })
			if got := prompts(seen.Queue); !slices.Equal(got, []string{"two", "three"}) || seen.Paused {
				t.Errorf("the other client saw the queue %+v", seen.Queue)
			}
			if st := state(t, ctx, other, id); st.Queue == nil || !slices.Equal(prompts(*st.Queue), []string{"two", "three"}) {
				t.Errorf("session/state's queue = %+v", st.Queue)
			}
			// A client that wants today's refusal still gets it.
			no := false
			_, rerr := c.Call(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: "four", AgentType: rt.id, Queue: &no})
			if rerr == nil || rerr.Code != rpc.CodeSessionBusy {
				t.Errorf("session/send with queue:false during a turn = %v, want -32011", rerr)
			}

			r.hold.release("hold one")
			turnsCompleted(t, ctx, other, id, 3)
			if got := r.hold.received(); !slices.Equal(got, []string{"hold one", "two", "three"}) {
				t.Errorf("the model received %q, want the turn then the queue in order", got)
			}
			if q := r.list(t, ctx, other, id); len(q.Items) != 0 || q.Paused {
				t.Errorf("the queue after draining = %+v", q)
			}
			said := saidLive(messageEvents(t, other.SessionEvents(id)))
			want := []string{"user: hold one", "assistant: echo: hold one", "user: two", "assistant: echo: two",
				"user: three", "assistant: echo: three"}
			if !slices.Equal(said, want) {
				t.Errorf("the watcher saw %q, want %q", said, want)
			}
		})
	}
}

// For every runtime, with its real CLI: the queue is kept across a daemon
// restart, in the order the user left it (moved and edited); after the
// restart it waits, paused, until a client resumes it; then it drains in
// that order through the resumed session (Gemini's resume may first wait
// for the minute of its chat file to turn: the context allows loadWait).
func TestQueueAcrossRestart(t *testing.T) {
	for _, rt := range scenarioRuntimes {
		t.Run(rt.id, func(t *testing.T) {
			r := newQueueRig(t, rt)
			ctx := queueCtx(t, rt)
			c, _ := Connect(t, ctx, r.url, r.token)
			w := (&scenarioRig{}).workspace(t, ctx, c)
			var st rpc.SessionStartResult
			c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: rt.id}, &st)
			id := st.SessionID
			r.send(t, ctx, c, id, "first")
			turnsCompleted(t, ctx, c, id, 1)
			r.send(t, ctx, c, id, "hold A")
			r.hold.awaitArrival(t, ctx, "hold A")
			b := r.queued(t, ctx, c, id, "B", 1)
			cID := r.queued(t, ctx, c, id, "C", 2)
			c.MustCall(ctx, rpc.MethodQueueMove, rpc.QueueMoveParams{SessionID: id, QueueID: cID, Position: 1}, nil)
			c.MustCall(ctx, rpc.MethodQueueUpdate, rpc.QueueUpdateParams{SessionID: id, QueueID: b, Prompt: "B2"}, nil)

			file := filepath.Join(r.home, "queues", id+".json")
			fi, err := os.Stat(file)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("the queue's file: %v, %v; want mode 0600", fi, err)
			}
			c.Close()
			r.restart(t)

			c, _ = Connect(t, ctx, r.url, r.token)
			other, _ := Connect(t, ctx, r.url, r.token)
			q := r.list(t, ctx, other, id)
			if got := prompts(q.Queue); !slices.Equal(got, []string{"C", "B2"}) || !q.Paused || q.PauseReason != rpc.PauseRestarted {
				t.Fatalf("the queue after the restart = %+v, want C, B2 paused (restarted)", q)
			}
			if got := r.hold.received(); !slices.Equal(got, []string{"first", "hold A"}) {
				t.Fatalf("the model received %q before the resume: nothing may run on its own after a restart", got)
			}
			var res rpc.QueueResult
			c.MustCall(ctx, rpc.MethodQueueResume, rpc.QueueParams{SessionID: id}, &res)
			if got := prompts(res.Queue); !slices.Equal(got, []string{"B2"}) || res.Paused {
				t.Errorf("session/queue/resume = %+v, want C running and B2 left", res)
			}
			r.hold.awaitArrival(t, ctx, "C")
			turnsCompleted(t, ctx, c, id, 2)
			if got := r.hold.received(); !slices.Equal(got, []string{"first", "hold A", "C", "B2"}) {
				t.Errorf("the model received %q", got)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("the drained queue's file is still there: %v", err)
			}
		})
	}
}

// With Claude Code: an interrupt pauses the queue (nothing queued runs);
// session/queue/resume drains it. A stop pauses it too; a send to the
// stopped session runs its own prompt at once, resuming the process, and
// the queue drains after it. An edit of a prompt that already ran, and
// other bad input, get clear errors.
func TestQueuePausesAndBadInput(t *testing.T) {
	r := newQueueRig(t, scenarioRuntimes[0])
	if r.rt.id != claude.ID {
		t.Fatalf("scenarioRuntimes[0] is %s, want claude", r.rt.id)
	}
	ctx := queueCtx(t, r.rt)
	c, _ := Connect(t, ctx, r.url, r.token)
	w := (&scenarioRig{}).workspace(t, ctx, c)
	var st rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: claude.ID}, &st)
	id := st.SessionID

	// An interrupt pauses the queue.
	r.send(t, ctx, c, id, "hold 1")
	r.hold.awaitArrival(t, ctx, "hold 1")
	x := r.queued(t, ctx, c, id, "X", 1)
	c.MustCall(ctx, rpc.MethodSessionInput, rpc.SessionInputParams{SessionID: id, Key: "escape", AgentType: claude.ID}, nil)
	paused := awaitQueue(t, ctx, c, id, func(q rpc.Queue) bool { return q.Paused })
	if paused.PauseReason != rpc.PauseInterrupted || !slices.Equal(prompts(paused.Queue), []string{"X"}) {
		t.Errorf("the queue after the interrupt = %+v", paused.Queue)
	}
	if s := state(t, ctx, c, id); s.Queue == nil || !s.Queue.Paused || s.Queue.PauseReason != rpc.PauseInterrupted {
		t.Errorf("session/state's queue after the interrupt = %+v", s.Queue)
	}
	var res rpc.QueueResult
	c.MustCall(ctx, rpc.MethodQueueResume, rpc.QueueParams{SessionID: id}, &res)
	r.hold.awaitArrival(t, ctx, "X")
	turnsCompleted(t, ctx, c, id, 1)

	// The prompt ran: editing it is refused, and says why.
	_, rerr := c.Call(ctx, rpc.MethodQueueUpdate, rpc.QueueUpdateParams{SessionID: id, QueueID: x, Prompt: "Y"})
	if rerr == nil || rerr.Code != rpc.CodeQueueItemGone || rerr.Data.(map[string]any)["reason"] != "ran" {
		t.Errorf("session/queue/update of a prompt that ran = %v, want -32015 reason ran", rerr)
	}
	bad := []struct {
		method string
		params any
		code   int64
	}{
		{rpc.MethodQueueRemove, rpc.QueueItemParams{SessionID: id, QueueID: "no-such-item"}, rpc.CodeQueueItemGone},
		{rpc.MethodQueueMove, rpc.QueueMoveParams{SessionID: id, QueueID: x, Position: 0}, rpc.CodeInvalidParams},
		{rpc.MethodQueueUpdate, rpc.QueueUpdateParams{SessionID: id, QueueID: x}, rpc.CodeInvalidParams},
		{rpc.MethodQueueList, rpc.QueueParams{}, rpc.CodeInvalidParams},
		{rpc.MethodQueueList, rpc.QueueParams{SessionID: "../x"}, rpc.CodeInvalidParams},
		{rpc.MethodSessionSteer, rpc.SteerParams{SessionID: id, Prompt: "p"}, rpc.CodeInvalidParams}, // Claude cannot steer
		{rpc.MethodSessionSteer, rpc.SteerParams{SessionID: id}, rpc.CodeInvalidParams},
	}
	for _, b := range bad {
		if _, rerr := c.Call(ctx, b.method, b.params); rerr == nil || rerr.Code != b.code {
			t.Errorf("%s %+v = %v, want %d", b.method, b.params, rerr, b.code)
		}
	}

	// A stop pauses the queue; a send to the stopped session runs at once,
	// then the queue drains.
	r.send(t, ctx, c, id, "hold 2")
	r.hold.awaitArrival(t, ctx, "hold 2")
	r.queued(t, ctx, c, id, "Z", 1)
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: claude.ID}, nil)
	stopped := awaitQueue(t, ctx, c, id, func(q rpc.Queue) bool { return q.Paused && q.PauseReason == rpc.PauseStopped })
	if !slices.Equal(prompts(stopped.Queue), []string{"Z"}) {
		t.Errorf("the queue after the stop = %+v", stopped.Queue)
	}
	if res := r.send(t, ctx, c, id, "now"); res.Status != rpc.SendSent {
		t.Fatalf("session/send to the stopped session = %+v, want sent", res)
	}
	r.hold.awaitArrival(t, ctx, "Z")
	if got := r.hold.received(); !slices.Equal(got[len(got)-2:], []string{"now", "Z"}) {
		t.Errorf("the model received %q: want the new prompt, then the queue", got)
	}
	awaitQueue(t, ctx, c, id, func(q rpc.Queue) bool { return len(q.Items) == 0 })
	if s := state(t, ctx, c, id); s.Queue != nil {
		t.Errorf("session/state's queue once drained = %+v", s.Queue)
	}
}
