package contracttests

// The scenarios during a turn: permissions allowed, denied and always, a
// question, an interrupt mid-stream, and stop while a permission is pending.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// 4. A command the model wants to run is asked about: allowed it runs,
// denied it does not, allowed always it runs and the same command is not
// asked about again.
func scenarioPermissions(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, init := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id := r.start(t, ctx, c, w, rpc.PermissionDefault)

	ask := func(cmd, response, decision string) Notification {
		t.Helper()
		after := r.send(t, ctx, c, id, "run: "+cmd)
		p := permission(t, await(t, ctx, c, rpc.EventPermission, id))
		var keys []string
		for _, o := range p.Options {
			keys = append(keys, o.Key)
		}
		if p.Type != rpc.PermBash || p.Target != cmd || p.RequestID == "" || !slices.Equal(keys, r.permissionKeys()) {
			t.Errorf("pty_permission = %+v", p)
		}
		awaitState(t, ctx, c, id, rpc.PtyPermission, after)
		if st := state(t, ctx, c, id); !st.WaitingForInput || st.Activity != rpc.ActivityPermission || len(st.Pending) != 1 {
			t.Errorf("session/state while asking = %+v", st)
		}
		var ok rpc.StatusResult
		c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
			Response: response, RequestID: p.RequestID, AgentType: r.rt.id}, &ok)
		var res rpc.PermissionResolvedEvent
		if err := await(t, ctx, c, rpc.EventPermissionResolved, id).Decode(&res); err != nil {
			t.Fatal(err)
		}
		if res.RequestID != p.RequestID || res.Decision != decision || res.ResolvedBy != init.ClientID {
			t.Errorf("pty_permission_resolved = %+v, want %s by %s", res, decision, init.ClientID)
		}
		end, evs := r.end(t, ctx, c, id, after)
		if end.Type() != rpc.EventTurnCompleted {
			t.Errorf("the turn after %q ended with %s (events %v)", response, end, types(evs))
		}
		return end
	}
	file := func(name string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(w.Path, name))
		return string(b), err == nil
	}

	ask("touch allowed.txt", "yes", "allow")
	if _, ok := file("allowed.txt"); !ok {
		t.Error("the allowed command did not run")
	}
	ask("touch denied.txt", "no", "deny")
	if _, ok := file("denied.txt"); ok {
		t.Error("the denied command ran")
	}
	const again = "echo ran >> always.txt"
	ask(again, "always", "allow_always")
	after := r.send(t, ctx, c, id, "run: "+again)
	// Asked again, the turn would wait for an answer: fail at once instead.
	var first Notification
	if err := c.Until(ctx, func(ns []Notification) bool {
		i := slices.IndexFunc(ns, func(n Notification) bool {
			return n.Header().SessionID == id && n.Seq() > after && (isTerminal(n) || n.Type() == rpc.EventPermission)
		})
		if i >= 0 {
			first = ns[i]
		}
		return i >= 0
	}); err != nil {
		t.Fatal(err)
	}
	if first.Type() != rpc.EventTurnCompleted {
		t.Fatalf("the same command after always: %s, want it run without asking", first)
	}
	if got, _ := file("always.txt"); got != "ran\nran\n" {
		t.Errorf("always.txt = %q, want the command run twice", got)
	}
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, nil)
}

// 5. The model asks a question; session/respond answers it and the model
// gets the answer. Only for a runtime whose record says it asks questions.
func scenarioQuestion(t *testing.T, r *scenarioRig) {
	if r.rt.questionMode == "" {
		// Said by the suite, checked against the record: never a silent skip.
		if r.record.SupportsInteractiveQuestions {
			t.Fatalf("%s asks no questions, but its registry record says supportsInteractiveQuestions", r.rt.id)
		}
		t.Skipf("%s asks no questions (and its registry record says so): nothing to answer", r.rt.id)
	}
	if !r.record.SupportsInteractiveQuestions {
		t.Fatalf("%s asks questions in %s mode, but its registry record says supportsInteractiveQuestions false", r.rt.id, r.rt.questionMode)
	}
	if !slices.Contains(r.record.PermissionModes, r.rt.questionMode) {
		t.Fatalf("the %s record's permissionModes %v lack %s, where it asks questions", r.rt.id, r.record.PermissionModes, r.rt.questionMode)
	}
	ctx := testCtx(t)
	c, init := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id := r.start(t, ctx, c, w, r.rt.questionMode)
	after := r.send(t, ctx, c, id, "ask: color")
	var q rpc.QuestionEvent
	if err := await(t, ctx, c, rpc.EventQuestion, id).Decode(&q); err != nil {
		t.Fatal(err)
	}
	if len(q.Questions) != 1 || q.Questions[0].Question != "Which color?" || len(q.Questions[0].Options) != 2 ||
		q.Questions[0].Options[1].Label != "blue" || q.RequestID == "" {
		t.Fatalf("question = %+v", q)
	}
	awaitState(t, ctx, c, id, rpc.PtyQuestion, after)
	if st := state(t, ctx, c, id); st.Activity != rpc.ActivityQuestion || len(st.Pending) != 1 || st.Pending[0].Type != rpc.RespondQuestion {
		t.Errorf("session/state while asking = %+v", st)
	}
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondQuestion,
		Response: q.Questions[0].Options[1].Key, RequestID: q.RequestID, AgentType: r.rt.id}, nil)
	var res rpc.PermissionResolvedEvent
	if err := await(t, ctx, c, rpc.EventPermissionResolved, id).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if res.RequestID != q.RequestID || res.Decision != "answered" || res.ResolvedBy != init.ClientID {
		t.Errorf("pty_permission_resolved = %+v", res)
	}
	end, evs := r.end(t, ctx, c, id, after)
	if end.Type() != rpc.EventTurnCompleted {
		t.Fatalf("the turn ended with %s (events %v)", end, types(evs))
	}
	said := saidLive(messageEvents(t, evs))
	if len(said) == 0 || !strings.HasPrefix(said[len(said)-1], "assistant: tool said: ") || !strings.Contains(said[len(said)-1], "blue") {
		t.Errorf("the model did not get the answer blue: %q", said)
	}
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, nil)
}

// 6. Escape with nothing pending interrupts a streaming turn: exactly one
// terminal event; then session/stop leaves no process of the session.
func scenarioInterrupt(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id := r.start(t, ctx, c, w, "")
	pids := children(t, w.Path)
	if len(pids) != 1 {
		t.Fatalf("CLIs in the workspace: %v, want one", pids)
	}
	pgid, err := syscall.Getpgid(pids[0])
	if err != nil {
		t.Fatal(err)
	}
	after := r.send(t, ctx, c, id, "slow: talk")
	await(t, ctx, c, rpc.EventMessageDelta, id)
	var ok rpc.StatusResult
	c.MustCall(ctx, rpc.MethodSessionInput, rpc.SessionInputParams{SessionID: id, Key: "escape", AgentType: r.rt.id}, &ok)
	if ok.Status != "sent" {
		t.Errorf("session/input escape = %+v", ok)
	}
	end, evs := r.end(t, ctx, c, id, after)
	var failed rpc.ErrorEvent
	if err := end.Decode(&failed); err != nil || end.Type() != rpc.EventError || failed.Code != runtimes.CodeInterrupted {
		t.Errorf("the interrupted turn ended with %s (events %v), want error %s", end, types(evs), runtimes.CodeInterrupted)
	}
	if st := state(t, ctx, c, id); !st.IsRunning || st.Activity != rpc.ActivityIdle {
		t.Errorf("session/state after the interrupt = %+v", st)
	}
	// The session goes on; and any late terminal event of the interrupted
	// turn would arrive before this turn's.
	if got := saidLive(messageEvents(t, r.turn(t, ctx, c, id, "after"))); !slices.Equal(got, []string{"user: after", "assistant: echo: after"}) {
		t.Errorf("the turn after the interrupt said %q", got)
	}

	var res rpc.SessionStopResult
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, &res)
	if !res.Success || res.Status != "stopped" {
		t.Errorf("session/stop = %+v", res)
	}
	stopped := await(t, ctx, c, rpc.EventSessionStopped, id)
	// session/stop returns once the process group is gone.
	if left := r.procs(w.Path); len(left) != 0 || !groupGone(pgid) {
		t.Errorf("after stop: processes %v in the workspace, group %d gone: %v", left, pgid, groupGone(pgid))
	}
	awaitSeq(t, ctx, c, id, state(t, ctx, c, id).LastSeq)
	var ends []string
	for _, n := range between(c.SessionEvents(id), after+1, stopped.Seq()) {
		if isTerminal(n) {
			ends = append(ends, n.Type())
		}
	}
	if !slices.Equal(ends, []string{rpc.EventError, rpc.EventTurnCompleted}) {
		t.Errorf("terminal events of the interrupted turn and the next: %v, want one each", ends)
	}
	if all := c.SessionEvents(id); all[len(all)-1].Seq() != stopped.Seq() {
		t.Errorf("events after session_stopped: %v", types(all))
	}
}

// 6b. session/stop while the model waits for a permission: the prompt is
// withdrawn (resolved cancelled by the server), the command never runs, the
// turn ends once, with session_stopped, and no process of the session is
// left once stop returns.
func scenarioStopPending(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id := r.start(t, ctx, c, w, rpc.PermissionDefault)
	pids := children(t, w.Path)
	if len(pids) != 1 {
		t.Fatalf("CLIs in the workspace: %v, want one", pids)
	}
	pgid, err := syscall.Getpgid(pids[0])
	if err != nil {
		t.Fatal(err)
	}
	after := r.send(t, ctx, c, id, "run: touch never.txt")
	p := permission(t, await(t, ctx, c, rpc.EventPermission, id))
	awaitState(t, ctx, c, id, rpc.PtyPermission, after)

	var res rpc.SessionStopResult
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, &res)
	if !res.Success || res.Status != "stopped" {
		t.Errorf("session/stop = %+v", res)
	}
	if left := r.procs(w.Path); len(left) != 0 || !groupGone(pgid) {
		t.Errorf("after stop: processes %v in the workspace, group %d gone: %v", left, pgid, groupGone(pgid))
	}
	stopped := await(t, ctx, c, rpc.EventSessionStopped, id)
	st := state(t, ctx, c, id)
	if st.IsRunning || st.WaitingForInput || len(st.Pending) != 0 {
		t.Errorf("session/state after stop = %+v", st)
	}
	awaitSeq(t, ctx, c, id, st.LastSeq)
	evs := between(c.SessionEvents(id), after+1, stopped.Seq()+1)
	var resolved []rpc.PermissionResolvedEvent
	for _, n := range evs {
		var res rpc.PermissionResolvedEvent
		if n.Type() == rpc.EventPermissionResolved && n.Decode(&res) == nil {
			resolved = append(resolved, res)
		}
	}
	if len(resolved) != 1 || resolved[0].RequestID != p.RequestID || resolved[0].Decision != "cancelled" || resolved[0].ResolvedBy != "server" {
		t.Errorf("pty_permission_resolved %+v, want %s cancelled by the server", resolved, p.RequestID)
	}
	if k := count(evs, isTerminal); k != 1 {
		t.Errorf("%d terminal events in the stopped turn: %v", k, types(evs))
	}
	if all := c.SessionEvents(id); all[len(all)-1].Seq() != stopped.Seq() {
		t.Errorf("events after session_stopped: %v", types(all))
	}
	if _, err := os.Stat(filepath.Join(w.Path, "never.txt")); err == nil {
		t.Error("the command whose permission was pending ran")
	}
}
