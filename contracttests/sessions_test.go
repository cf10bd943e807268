package contracttests

import (
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

func TestFullSession(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, c)

	id := startSession(t, ctx, c, w)
	// The id is final when start returns: the session answers to it at once.
	st := state(t, ctx, c, id)
	if st.SessionID != id || st.WorkspaceID != w.ID || st.AgentType != scripted.ID || !st.IsRunning ||
		st.Status != rpc.StatusRunning || st.Epoch != init.Epoch {
		t.Errorf("session/state right after start = %+v", st)
	}
	var live rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceGet, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, &live)
	if !slices.ContainsFunc(live.Sessions, func(s rpc.WorkspaceSession) bool { return s.ID == id }) {
		t.Errorf("workspace/get sessions = %+v, want %s listed", live.Sessions, id)
	}

	send(t, ctx, c, id, "hello")
	end := await(t, ctx, c, rpc.EventTurnCompleted, id)
	var tc rpc.TurnCompletedEvent
	if err := end.Decode(&tc); err != nil {
		t.Fatal(err)
	}
	if tc.StopReason == "" || tc.Usage.InputTokens != int64(len("hello")) {
		t.Errorf("turn_completed = %+v, want a stop reason and the prompt's input tokens", tc)
	}

	// A second turn: its events come after every event of the first, so
	// they bound the first turn's.
	send(t, ctx, c, id, "again")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	st = state(t, ctx, c, id)
	awaitSeq(t, ctx, c, id, st.LastSeq)
	evs := c.SessionEvents(id)
	checkSeqs(t, evs, 1, init.Epoch)
	if int64(len(evs)) != st.LastSeq {
		t.Fatalf("received %d events, state says last_seq %d", len(evs), st.LastSeq)
	}
	if evs[0].Type() != rpc.EventSessionStart {
		t.Errorf("first event is %s, want session_start", evs[0].Type())
	}

	var turn1 []Notification
	for _, n := range evs {
		turn1 = append(turn1, n)
		if n.Seq() == end.Seq() {
			break
		}
	}
	if got := count(evs, isTerminal); got != 2 {
		t.Errorf("%d terminal events for two turns: %v", got, types(evs))
	}
	if got := count(turn1, isTerminal); got != 1 || !isTerminal(turn1[len(turn1)-1]) {
		t.Errorf("first turn: want exactly one terminal event, last: %v", types(turn1))
	}

	// What the first turn said, in order: the user's message, thinking,
	// the answer streamed and then complete, idle.
	var deltas strings.Builder
	var msgs []rpc.MessageEvent
	var states []string
	for _, n := range turn1 {
		switch n.Type() {
		case rpc.EventMessageDelta:
			var d rpc.MessageDeltaEvent
			_ = n.Decode(&d)
			if d.Phase != rpc.PhaseText || d.MessageID == "" {
				t.Errorf("message_delta = %+v", d)
			}
			deltas.WriteString(d.Text)
		case rpc.EventMessage:
			var m rpc.MessageEvent
			_ = n.Decode(&m)
			msgs = append(msgs, m)
		case rpc.EventState:
			var s rpc.StateEvent
			_ = n.Decode(&s)
			states = append(states, string(s.State))
		}
	}
	if deltas.String() != "echo: hello" {
		t.Errorf("message_delta texts = %q, want %q", deltas.String(), "echo: hello")
	}
	if len(msgs) != 2 || msgs[0].Type != rpc.MessageUser || text(msgs[0].Message) != "hello" ||
		msgs[1].Type != rpc.MessageAssistant || text(msgs[1].Message) != "echo: hello" {
		t.Errorf("claude_message events = %+v, want the user's hello then echo: hello", msgs)
	}
	if !slices.Equal(states, []string{"thinking", "idle"}) {
		t.Errorf("pty_state sequence %v, want [thinking idle]", states)
	}

	st = state(t, ctx, c, id)
	if st.Status != rpc.StatusRunning || st.Activity != rpc.ActivityIdle || st.WaitingForInput || !st.IsRunning {
		t.Errorf("session/state after the turns = %+v", st)
	}
}

// text concatenates a message's text blocks.
func text(m rpc.MessageBody) string {
	var b strings.Builder
	for _, c := range m.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func TestStartWithPromptAndUnknownSession(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID, Prompt: "first"}, &res)
	end := await(t, ctx, c, rpc.EventTurnCompleted, res.SessionID)
	if end.Header().WorkspaceID != w.ID || end.Header().AgentType != scripted.ID {
		t.Errorf("turn_completed header = %+v", end.Header())
	}

	_, rerr := c.Call(ctx, rpc.MethodSessionState, rpc.SessionStateParams{SessionID: "no-such-session"})
	wantError(t, "session/state of an unknown session", rerr, rpc.CodeSessionNotFound)
	if got := errData(t, rerr)["session_id"]; got != "no-such-session" {
		t.Errorf("data.session_id = %v", got)
	}
	_, rerr = c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: "ws_nope", AgentType: scripted.ID})
	wantError(t, "session/start in an unknown workspace", rerr, rpc.CodeWorkspaceNotFound)
	_, rerr = c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID,
		ResumeSessionID: "0b5a4a57-0000-4000-8000-000000000000"})
	wantError(t, "resuming a session that never existed", rerr, rpc.CodeSessionNotFound)
}

func TestPermissionRoundTripTwoClients(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	a, _ := Connect(t, ctx, e.url, e.token)
	b, initB := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, a)
	id := startSession(t, ctx, a, w)
	var watch rpc.WatchResult
	b.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID}, &watch)
	if !watch.Watching || watch.Status != "watching" || watch.SessionID != id || watch.WorkspaceID != w.ID ||
		watch.Epoch != initB.Epoch || watch.Gap || watch.Replayed != 0 {
		t.Errorf("watch = %+v", watch)
	}

	send(t, ctx, a, id, script(map[string]any{"permission": map[string]any{
		"tool": "Bash", "target": "rm -rf build", "kind": "bash_command"}}))
	var asked [2]rpc.PermissionEvent
	for i, c := range []*Client{a, b} {
		if err := await(t, ctx, c, rpc.EventPermission, id).Decode(&asked[i]); err != nil {
			t.Fatal(err)
		}
	}
	p := asked[0]
	if asked[1].RequestID != p.RequestID || asked[1].Seq != p.Seq {
		t.Errorf("the two clients got different requests: %+v, %+v", asked[0], asked[1])
	}
	if p.RequestID == "" || p.Type != rpc.PermBash || p.ToolName != "Bash" || p.Target != "rm -rf build" {
		t.Errorf("pty_permission = %+v", p)
	}
	var keys []string
	for _, o := range p.Options {
		keys = append(keys, o.Key)
	}
	if !slices.Equal(keys, []string{"yes", "always", "no"}) {
		t.Errorf("options %v, want yes, always, no", keys)
	}
	st := state(t, ctx, a, id)
	if !st.WaitingForInput || st.Activity != rpc.ActivityPermission || len(st.Pending) != 1 ||
		st.Pending[0].RequestID != p.RequestID || st.Pending[0].Type != rpc.RespondPermission {
		t.Errorf("session/state while asking = %+v", st)
	}

	var ok rpc.StatusResult
	b.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", RequestID: p.RequestID, AgentType: scripted.ID}, &ok)
	if ok.Status != "responded" {
		t.Errorf("session/respond = %+v", ok)
	}
	for _, c := range []*Client{a, b} {
		var r rpc.PermissionResolvedEvent
		if err := await(t, ctx, c, rpc.EventPermissionResolved, id).Decode(&r); err != nil {
			t.Fatal(err)
		}
		if r.RequestID != p.RequestID || r.Decision != "allow" || r.ResolvedBy != initB.ClientID {
			t.Errorf("pty_permission_resolved = %+v, want %s allowed by %s", r, p.RequestID, initB.ClientID)
		}
	}
	_, rerr := a.Call(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "no", RequestID: p.RequestID, AgentType: scripted.ID})
	wantError(t, "the late answer", rerr, rpc.CodeRequestNotFound)
	if d := errData(t, rerr); d["session_id"] != id || d["request_id"] != p.RequestID {
		t.Errorf("late answer data = %v", d)
	}

	for _, c := range []*Client{a, b} {
		await(t, ctx, c, rpc.EventTurnCompleted, id)
		msg := lastMessage(t, c, id)
		if text(msg.Message) != "permission: allow" {
			t.Errorf("after allowing: %q", text(msg.Message))
		}
	}
}

// lastMessage is the last claude_message c received for session id.
func lastMessage(t *testing.T, c *Client, id string) rpc.MessageEvent {
	t.Helper()
	var m rpc.MessageEvent
	evs := c.SessionEvents(id)
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type() == rpc.EventMessage {
			if err := evs[i].Decode(&m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no claude_message received for %s", id)
	return m
}

func TestSessionInputKeys(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c, init := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)

	_, rerr := c.Call(ctx, rpc.MethodSessionInput, rpc.SessionInputParams{SessionID: id, Key: "enter", AgentType: scripted.ID})
	wantError(t, "session/input with nothing pending", rerr, rpc.CodeRequestNotFound)

	perm := func(tool string) map[string]any {
		return map[string]any{"permission": map[string]any{"tool": tool, "target": "x", "kind": "write_file"}}
	}
	send(t, ctx, c, id, script(perm("Write"), perm("Edit")))
	for _, in := range []rpc.SessionInputParams{
		{SessionID: id, Key: "enter", AgentType: scripted.ID},
		{SessionID: id, Input: "escape", AgentType: scripted.ID},
	} {
		await(t, ctx, c, rpc.EventPermission, id)
		var ok rpc.StatusResult
		c.MustCall(ctx, rpc.MethodSessionInput, in, &ok)
		if ok.Status != "sent" {
			t.Errorf("session/input = %+v", ok)
		}
	}
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	var decisions, answers []string
	for _, n := range c.SessionEvents(id) {
		switch n.Type() {
		case rpc.EventPermissionResolved:
			var r rpc.PermissionResolvedEvent
			_ = n.Decode(&r)
			decisions = append(decisions, r.Decision)
			if r.ResolvedBy != init.ClientID {
				t.Errorf("resolved_by %q, want %q", r.ResolvedBy, init.ClientID)
			}
		case rpc.EventMessage:
			var m rpc.MessageEvent
			_ = n.Decode(&m)
			if m.Type == rpc.MessageAssistant {
				answers = append(answers, text(m.Message))
			}
		}
	}
	if !slices.Equal(decisions, []string{"allow", "deny"}) {
		t.Errorf("decisions %v, want enter → allow, escape → deny", decisions)
	}
	if !slices.Equal(answers, []string{"permission: allow", "permission: deny"}) {
		t.Errorf("the runtime got %v", answers)
	}
}

func TestQuestion(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	send(t, ctx, c, id, script(map[string]any{"question": map[string]any{"text": "Pick one", "options": []string{"red", "blue"}}}))

	var q rpc.QuestionEvent
	if err := await(t, ctx, c, rpc.EventQuestion, id).Decode(&q); err != nil {
		t.Fatal(err)
	}
	if len(q.Questions) != 1 || q.Questions[0].Question != "Pick one" || len(q.Questions[0].Options) != 2 ||
		q.Questions[0].Options[1].Key != "blue" {
		t.Errorf("question = %+v", q)
	}
	var ps rpc.StateEvent
	for {
		if err := await(t, ctx, c, rpc.EventState, id).Decode(&ps); err != nil {
			t.Fatal(err)
		}
		if ps.State != rpc.PtyThinking {
			break
		}
	}
	if ps.State != rpc.PtyQuestion || !ps.WaitingForInput {
		t.Errorf("pty_state while asking = %+v", ps)
	}
	st := state(t, ctx, c, id)
	if len(st.Pending) != 1 || st.Pending[0].Type != rpc.RespondQuestion || st.Activity != rpc.ActivityQuestion {
		t.Errorf("session/state while asking = %+v", st)
	}

	// A question is not answered as a permission.
	_, rerr := c.Call(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", RequestID: q.RequestID, AgentType: scripted.ID})
	wantError(t, "answering a question as a permission", rerr, rpc.CodeRequestNotFound)

	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondQuestion,
		Response: "blue", RequestID: q.RequestID, AgentType: scripted.ID}, nil)
	var r rpc.PermissionResolvedEvent
	if err := await(t, ctx, c, rpc.EventPermissionResolved, id).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.RequestID != q.RequestID || r.Decision != "answered" {
		t.Errorf("resolved = %+v", r)
	}
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	if got := text(lastMessage(t, c, id).Message); got != "answer: blue" {
		t.Errorf("the runtime got %q, want answer: blue", got)
	}
}

// A client that starts watching while a prompt is pending gets it, even
// with no since_seq, and can answer it.
func TestPendingPromptResentToNewWatcher(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	a := e.connect(ctx)
	w := e.workspace(ctx, a)
	id := startSession(t, ctx, a, w)
	send(t, ctx, a, id, script(map[string]any{"permission": map[string]any{"tool": "Bash", "target": "make", "kind": "bash_command"}}))
	var p rpc.PermissionEvent
	if err := await(t, ctx, a, rpc.EventPermission, id).Decode(&p); err != nil {
		t.Fatal(err)
	}

	third, init := Connect(t, ctx, e.url, e.token)
	third.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID}, nil)
	var again rpc.PermissionEvent
	if err := await(t, ctx, third, rpc.EventPermission, id).Decode(&again); err != nil {
		t.Fatal(err)
	}
	if again.RequestID != p.RequestID || again.Seq != p.Seq || again.Target != "make" {
		t.Errorf("re-sent %+v, want the pending %+v", again, p)
	}
	third.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "always", AgentType: scripted.ID}, nil)
	var r rpc.PermissionResolvedEvent
	if err := await(t, ctx, a, rpc.EventPermissionResolved, id).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.ResolvedBy != init.ClientID || r.Decision != "allow_always" {
		t.Errorf("resolved = %+v, want allow_always by %s", r, init.ClientID)
	}
	await(t, ctx, third, rpc.EventTurnCompleted, id)
}

func TestStop(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	send(t, ctx, c, id, script(map[string]any{"delta": "working"}, map[string]any{"wait_interrupt": true}))
	await(t, ctx, c, rpc.EventMessageDelta, id)
	if n := len(children(t, w.Path)); n != 1 {
		t.Errorf("%d processes in the workspace during the turn, want 1", n)
	}

	var res rpc.SessionStopResult
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: scripted.ID}, &res)
	if !res.Success || res.Status != "stopped" || res.SessionID != id || res.AgentType != scripted.ID {
		t.Errorf("session/stop = %+v", res)
	}
	stopped := await(t, ctx, c, rpc.EventSessionStopped, id)
	st := state(t, ctx, c, id)
	if st.Status != rpc.StatusStopped || st.IsRunning || st.WaitingForInput {
		t.Errorf("session/state after stop = %+v", st)
	}
	awaitSeq(t, ctx, c, id, st.LastSeq)
	evs := c.SessionEvents(id)
	var turn []Notification
	for _, n := range evs {
		if n.Type() == rpc.EventMessage || len(turn) > 0 {
			turn = append(turn, n)
		}
	}
	if got := count(turn, isTerminal); got != 1 {
		t.Errorf("the stopped turn has %d terminal events: %v", got, types(turn))
	}
	if stopped.Seq() > st.LastSeq {
		t.Errorf("session_stopped seq %d beyond last_seq %d", stopped.Seq(), st.LastSeq)
	}
	awaitNoChildren(t, ctx, w.Path)

	// Stopping twice is harmless.
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: scripted.ID}, nil)
}
