package contracttests

// The conversation scenarios: a text turn, a second turn in the same
// process, and resume after the process group is killed.

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// 1. A text turn: deltas spelling the answer, the prompt and the answer as
// messages, one terminal event, a turn_completed with usage; the id
// session/start returned is final (the session answers to it at once) and
// is the one every event carries.
func scenarioTextTurn(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, init := r.client(t, ctx)
	// The conversation's workspace outlives this scenario: the next two use it.
	w := r.workspace(r.tb, ctx, c)
	id := r.start(t, ctx, c, w, "")
	if st := state(t, ctx, c, id); st.SessionID != id || !st.IsRunning || st.Status != rpc.StatusRunning {
		t.Errorf("session/state right after start = %+v", st)
	}
	r.turn(t, ctx, c, id, "hello")
	// From session_start (received before the send) to turn_completed.
	evs := c.SessionEvents(id)
	checkSeqs(t, evs, 1, init.Epoch)
	if evs[0].Type() != rpc.EventSessionStart {
		t.Errorf("first event is %s, want session_start", evs[0].Type())
	}
	for _, n := range c.Notifications() {
		if strings.HasPrefix(n.Method, rpc.EventPrefix) && n.Header().SessionID != id {
			t.Errorf("an event carries session %q, not the id session/start returned (%s): %s", n.Header().SessionID, id, n)
		}
	}
	if k := count(evs, isTerminal); k != 1 {
		t.Errorf("%d terminal events in one turn: %v", k, types(evs))
	}
	var tc rpc.TurnCompletedEvent
	if err := evs[len(evs)-1].Decode(&tc); err != nil {
		t.Fatal(err)
	}
	if tc.Usage.InputTokens == 0 || tc.Usage.OutputTokens == 0 {
		t.Errorf("turn_completed without usage: %+v", tc)
	}
	var deltas []string
	for _, n := range evs {
		if n.Type() != rpc.EventMessageDelta {
			continue
		}
		var d rpc.MessageDeltaEvent
		if err := n.Decode(&d); err != nil {
			t.Fatal(err)
		}
		if d.Phase == rpc.PhaseText {
			deltas = append(deltas, d.Text)
		}
	}
	if len(deltas) < 2 || strings.Join(deltas, "") != "echo: hello" {
		t.Errorf("text deltas %q, want several spelling %q", deltas, "echo: hello")
	}
	if got := saidLive(messageEvents(t, evs)); !slices.Equal(got, []string{"user: hello", "assistant: echo: hello"}) {
		t.Errorf("claude_message events say %q", got)
	}
	pids := children(t, w.Path)
	if len(pids) != 1 {
		t.Fatalf("CLIs in the workspace: %v, want one", pids)
	}
	r.conv.w, r.conv.id, r.conv.pid = w, id, pids[0]
}

func (r *scenarioRig) needConv(t *testing.T) {
	t.Helper()
	if r.conv.id == "" {
		t.Fatalf("no conversation: %q failed", scTextTurn)
	}
}

// 2. A second turn runs in the same process, with the first in the model's
// history, and starts no new session.
func scenarioSecondTurn(t *testing.T, r *scenarioRig) {
	r.needConv(t)
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	r.watch(t, ctx, c, r.conv.w, r.conv.id)
	evs := r.turn(t, ctx, c, r.conv.id, "second")
	if got := saidLive(messageEvents(t, evs)); !slices.Equal(got, []string{"user: second", "assistant: echo: second"}) {
		t.Errorf("claude_message events say %q", got)
	}
	if k := count(evs, func(n Notification) bool { return n.Type() == rpc.EventSessionStart }); k != 0 {
		t.Errorf("the second turn started a session: %v", types(evs))
	}
	if pids := children(t, r.conv.w.Path); !slices.Equal(pids, []int{r.conv.pid}) {
		t.Errorf("CLIs in the workspace %v, want the first turn's %d alone", pids, r.conv.pid)
	}
	if h := r.lastHistory(t); !strings.Contains(h, "user: hello\n") || !strings.Contains(h, "assistant: echo: hello\n") {
		t.Errorf("the model did not see the first turn:\n%s", h)
	}
}

// 3. The CLI's whole process group dies (as in a crash); the next send
// resumes the same session in a new process, and the conversation goes on.
func scenarioResume(t *testing.T, r *scenarioRig) {
	r.needConv(t)
	ctx, cancel := context.WithTimeout(t.Context(), wait+r.rt.loadWait)
	defer cancel()
	c, init := r.client(t, ctx)
	w, id := r.conv.w, r.conv.id
	// SIGKILL loses what the CLI has not stored yet: wait until its own
	// store holds the second answer (the wire would already show it).
	pollUntil(t, ctx, "the second answer stored by the CLI", func() bool {
		ms, _, err := r.adapter.Transcripts().Messages(ctx, w.Path, id, 0, 500, false)
		return err == nil && slices.Contains(saidStored(ms), "assistant: echo: second")
	})
	last := r.watch(t, ctx, c, w, id).LastSeq
	pgid, err := syscall.Getpgid(r.conv.pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	await(t, ctx, c, rpc.EventSessionEnd, id)
	if st := state(t, ctx, c, id); st.IsRunning {
		t.Errorf("session/state after the kill = %+v", st)
	}
	r.awaitNoProcs(t, ctx, w.Path)

	evs := r.turn(t, ctx, c, id, "third")
	checkSeqs(t, c.SessionEvents(id), last+1, init.Epoch)
	if got := saidLive(messageEvents(t, evs)); !slices.Equal(got, []string{"user: third", "assistant: echo: third"}) {
		t.Errorf("claude_message events say %q", got)
	}
	pids := children(t, w.Path)
	if len(pids) != 1 || pids[0] == r.conv.pid {
		t.Errorf("CLIs after the resume %v (the killed one was %d)", pids, r.conv.pid)
	}
	if h := r.lastHistory(t); !strings.Contains(h, "user: hello\n") || !strings.Contains(h, "assistant: echo: second\n") {
		t.Errorf("the resumed model did not see the earlier turns:\n%s", h)
	}
	want := []string{"user: hello", "assistant: echo: hello", "user: second", "assistant: echo: second",
		"user: third", "assistant: echo: third"}
	if got := saidPaged(r.messages(t, ctx, c, w, id).Messages); !slices.Equal(got, want) {
		t.Errorf("stored conversation %q, want %q", got, want)
	}
	// Stop it, so that later scenarios' process counts are their own.
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, nil)
}
