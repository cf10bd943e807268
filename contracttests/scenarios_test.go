package contracttests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

// The scenario suite: the same named scenarios, run over the WebSocket as a
// client would, against every runtime of scenarioRuntimes (the real CLIs
// against their fake model APIs; a missing CLI fails, never skips). Each
// runtime gets one cdevd, one fake API and one CLI home; its scenarios run
// in order, the first three on one conversation, and the last checks that
// the registry record advertises what the others proved.

// suiteModel is the model every runtime's fake plays. The prompts are the
// scenarios' data: "run: CMD" calls the shell tool, "ask: color" asks a
// question, "slow: …" streams slowly; a tool's result is quoted back, and
// anything else is echoed.
func suiteModel(prompt string, toolResult *string) move {
	if toolResult != nil {
		return move{text: "tool said: " + *toolResult}
	}
	if cmd, ok := strings.CutPrefix(prompt, "run: "); ok {
		return move{run: cmd}
	}
	if prompt == "ask: color" {
		return move{ask: &askQuestion{question: "Which color?", header: "Color", options: []string{"red", "blue"}}}
	}
	if strings.HasPrefix(prompt, "slow: ") {
		// Long enough that the interrupt always lands mid-stream (10 s).
		return move{text: strings.Repeat("tick ", 200), delay: 50 * time.Millisecond}
	}
	return move{text: "echo: " + prompt}
}

// scenario is one named case, run for every runtime.
type scenario struct {
	name string
	run  func(t *testing.T, r *scenarioRig)
}

// Names the registry scenario refers to.
const (
	scTextTurn    = "text turn"
	scSecondTurn  = "second turn in the same process"
	scResume      = "resume after killing the process group"
	scPermissions = "permission allowed, denied, always"
	scQuestion    = "question"
	scInterrupt   = "interrupt mid-stream"
	scStopPending = "stop while a permission is pending"
	scReadWrites  = "read your writes"
	scOutside     = "watch a session run outside cdevd"
	scIDs         = "client-chosen id for a new session"
	scRegistry    = "registry record"
)

var scenarios = []scenario{
	{scTextTurn, scenarioTextTurn},
	{scSecondTurn, scenarioSecondTurn},
	{scResume, scenarioResume},
	{scPermissions, scenarioPermissions},
	{scQuestion, scenarioQuestion},
	{scInterrupt, scenarioInterrupt},
	{scStopPending, scenarioStopPending},
	{scReadWrites, scenarioReadYourWrites},
	{scOutside, scenarioOutside},
	{scIDs, scenarioIDs},
	{scRegistry, scenarioRegistry},
}

func TestScenarios(t *testing.T) {
	if _, _, ok := external(); ok {
		t.Skipf("needs cdevd in process with fake model APIs; %s targets an external server", envURL)
	}
	for _, rt := range scenarioRuntimes {
		t.Run(rt.id, func(t *testing.T) {
			began := time.Now()
			r := newScenarioRig(t, rt)
			for _, s := range scenarios {
				t.Run(s.name, func(t *testing.T) {
					defer func() { r.proved[s.name] = !t.Failed() && !t.Skipped() }()
					s.run(t, r)
				})
			}
			t.Logf("measured: %s scenarios took %v", rt.id, time.Since(began).Round(time.Millisecond))
		})
	}
}

// scenarioRig is one runtime's cdevd and what its scenarios share.
type scenarioRig struct {
	runtimeRig
	rt     scenarioRuntime
	tb     testing.TB // the runtime's test, which outlives its scenarios
	url    string
	token  string
	mark   string      // in the environment of every process the CLI starts
	record rpc.Runtime // the runtime's record in initialize's registry
	proved map[string]bool
	// The conversation of the first three scenarios.
	conv struct {
		w   rpc.Workspace
		id  string
		pid int
	}
}

func newScenarioRig(t *testing.T, rt scenarioRuntime) *scenarioRig {
	t.Helper()
	mark := fmt.Sprintf("CDEVD_SCENARIO=%s-%d", rt.id, time.Now().UnixNano())
	// Registered first, so it runs last: after cdevd has shut down, no
	// process the CLI started may be left, at any depth.
	t.Cleanup(func() {
		if left := proctest.Marked(mark); len(left) > 0 {
			t.Errorf("%s processes left after cdevd shut down: %v", rt.id, left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	// The fake API starts first, so that it closes after cdevd has ended the CLIs.
	rr := rt.start(t, mark, suiteModel)
	if id := rr.adapter.Info().ID; id != rt.id {
		t.Fatalf("the %s entry's adapter is %s", rt.id, id)
	}
	d := StartDaemon(t, daemon.Config{Adapters: []runtimes.Adapter{rr.adapter}})
	r := &scenarioRig{runtimeRig: rr, rt: rt, tb: t, url: d.URL(), token: d.Token(), mark: mark, proved: map[string]bool{}}
	ctx := testCtx(t)
	_, init := Connect(t, ctx, r.url, r.token)
	reg := init.Capabilities.RuntimeRegistry
	if len(reg.Runtimes) != 1 || reg.Runtimes[0].ID != rt.id || reg.DefaultRuntime != rt.id {
		t.Fatalf("registry = %+v, want %s alone", reg, rt.id)
	}
	r.record = reg.Runtimes[0]
	return r
}

// client connects and initializes a client.
func (r *scenarioRig) client(t *testing.T, ctx context.Context) (*Client, rpc.InitializeResult) {
	t.Helper()
	return Connect(t, ctx, r.url, r.token)
}

// workspace adds a new directory, removed when tb ends, as a workspace: a
// scenario that counts processes or sessions gets one of its own.
func (r *scenarioRig) workspace(tb testing.TB, ctx context.Context, c *Client) rpc.Workspace {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	return w
}

// start starts a new session in w and returns its id, the one the runtime
// chose unless the runtime lets clients choose.
func (r *scenarioRig) start(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, mode rpc.PermissionMode) string {
	t.Helper()
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: r.rt.id, PermissionMode: mode}, &res)
	if res.SessionID == "" || res.Status != rpc.StartStarted || res.Source != "new" || res.WorkspaceID != w.ID || res.AgentType != r.rt.id {
		t.Fatalf("session/start = %+v", res)
	}
	if err := runtimes.ValidSessionID(res.SessionID); err != nil {
		t.Fatalf("session id %q: %v", res.SessionID, err)
	}
	return res.SessionID
}

// send starts a turn and returns the last seq c had of the session before.
func (r *scenarioRig) send(t *testing.T, ctx context.Context, c *Client, id, prompt string) int64 {
	t.Helper()
	before := lastSeq(c, id)
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: prompt, AgentType: r.rt.id}, &res)
	if res.Status != "sent" || res.SessionID != id || res.AgentType != r.rt.id {
		t.Fatalf("session/send = %+v", res)
	}
	return before
}

// end waits for the first terminal event after seq after and returns it
// with the session's events from after+1 to it.
func (r *scenarioRig) end(t *testing.T, ctx context.Context, c *Client, id string, after int64) (Notification, []Notification) {
	t.Helper()
	var end Notification
	if err := c.Until(ctx, func(ns []Notification) bool {
		for _, n := range ns {
			if n.Header().SessionID == id && n.Seq() > after && isTerminal(n) {
				end = n
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("awaiting the end of the turn: %v", err)
	}
	return end, between(c.SessionEvents(id), after+1, end.Seq()+1)
}

// turn sends prompt, waits for its turn_completed and returns the turn's events.
func (r *scenarioRig) turn(t *testing.T, ctx context.Context, c *Client, id, prompt string) []Notification {
	t.Helper()
	end, evs := r.end(t, ctx, c, id, r.send(t, ctx, c, id, prompt))
	if end.Type() != rpc.EventTurnCompleted {
		t.Fatalf("turn %q ended with %s; events %v", prompt, end, types(evs))
	}
	return evs
}

// watch makes c watch session id and returns the last seq before.
func (r *scenarioRig) watch(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id string) rpc.WatchResult {
	t.Helper()
	var res rpc.WatchResult
	c.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: r.rt.id}, &res)
	if !res.Watching || res.SessionID != id || res.Gap || res.Replayed != 0 {
		t.Fatalf("watch = %+v", res)
	}
	return res
}

// messages is a session's whole stored transcript, over the wire.
func (r *scenarioRig) messages(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id string) rpc.MessagesResult {
	t.Helper()
	var res rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: r.rt.id, Limit: 500}, &res)
	return res
}

// history lists w's sessions of this runtime.
func (r *scenarioRig) history(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace) rpc.HistoryResult {
	t.Helper()
	var h rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: r.rt.id}, &h)
	return h
}

// procs lists the running processes of this runtime's CLIs, at any depth,
// whose working directory is dir.
func (r *scenarioRig) procs(dir string) []int {
	var out []int
	for _, pid := range proctest.Marked(r.mark) {
		if cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd")); err == nil && cwd == dir {
			out = append(out, pid)
		}
	}
	return out
}

// awaitNoProcs waits until no process of the CLI runs in dir.
func (r *scenarioRig) awaitNoProcs(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	pollUntil(t, ctx, "no process left in "+dir, func() bool { return len(r.procs(dir)) == 0 })
}

// awaitState waits for a pty_state of session id after seq after. The
// prompt's own event comes first: session/state may lag it until then.
func awaitState(t *testing.T, ctx context.Context, c *Client, id string, want rpc.PtyState, after int64) {
	t.Helper()
	if err := c.Until(ctx, func(ns []Notification) bool {
		return slices.ContainsFunc(ns, func(n Notification) bool {
			var s rpc.StateEvent
			return Event(rpc.EventState, id)(n) && n.Seq() > after && n.Decode(&s) == nil && s.State == want && s.WaitingForInput
		})
	}); err != nil {
		t.Fatalf("no pty_state %s: %v", want, err)
	}
}

// permissionKeys are the option keys a shell command's pty_permission
// offers, in order.
func (r *scenarioRig) permissionKeys() []string {
	if r.rt.permissionKeys != nil {
		return r.rt.permissionKeys
	}
	return []string{"yes", "always", "no"}
}

// permission decodes a pty_permission event.
func permission(t *testing.T, n Notification) rpc.PermissionEvent {
	t.Helper()
	var p rpc.PermissionEvent
	if err := n.Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

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
	if got := saidStored(r.messages(t, ctx, c, w, id).Messages); !slices.Equal(got, want) {
		t.Errorf("stored conversation %q, want %q", got, want)
	}
	// Stop it, so that later scenarios' process counts are their own.
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, nil)
}

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

// 7. Right after turn_completed, messages and history hold the turn, each
// message once, in the order streamed (consistency_test.go's checkStored).
func scenarioReadYourWrites(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id, seen := newTurn(t, ctx, c, w, r.rt.id, "first question")
	r.checkStored(t, ctx, c, w, id, "first question", seen)
	seen = append(seen, nextTurn(t, ctx, c, id, r.rt.id, "and a second one")...)
	r.checkStored(t, ctx, c, w, id, "first question", seen)
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: r.rt.id}, nil)
}

// checkStored is checkStored for this runtime: every message received live
// is stored under the same id. Every runtime under the suite echoes its
// prompts with their stored ids (Info().EchoesPrompts); one that did not
// would fail here, as its prompts would be listed twice.
func (r *scenarioRig) checkStored(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id, summary string, seen []rpc.MessageEvent) {
	t.Helper()
	if !r.adapter.Info().EchoesPrompts {
		t.Errorf("%s does not echo its prompts with the ids its transcript keeps", r.rt.id)
	}
	checkStored(t, ctx, c, w, id, r.rt.id, summary, seen)
}

// 8. A session run in a terminal in the workspace is in its history, and
// watching it streams what a later run in the terminal adds.
func scenarioOutside(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	id := r.outside(t, ctx, w.Path, "outside one", "")
	if h := r.history(t, ctx, c, w); len(h.Sessions) != 1 || h.Sessions[0].SessionID != id || h.Sessions[0].MessageCount != 2 {
		t.Errorf("history %+v, want the outside session with its 2 messages", h.Sessions)
	}
	res := r.watch(t, ctx, c, w, id)
	if res.LastSeq != 0 {
		t.Errorf("watch of the outside session = %+v", res)
	}
	r.outside(t, ctx, w.Path, "outside two", id)
	if err := c.Until(ctx, func(ns []Notification) bool {
		return slices.Contains(saidLive(messageEvents(t, ns)), "assistant: echo: outside two")
	}); err != nil {
		t.Fatalf("the watcher never got the second answer: %v", err)
	}
	evs := c.SessionEvents(id)
	checkSeqs(t, evs, 1, res.Epoch)
	if got := saidLive(messageEvents(t, evs)); !slices.Equal(got, []string{"user: outside two", "assistant: echo: outside two"}) {
		t.Errorf("the watcher got %q, want the second run's messages only", got)
	}
	if h := r.history(t, ctx, c, w); len(h.Sessions) != 1 || h.Sessions[0].SessionID != id || h.Sessions[0].MessageCount != 4 {
		t.Errorf("history %+v, want the outside session with its 4 messages", h.Sessions)
	}
	want := []string{"user: outside one", "assistant: echo: outside one", "user: outside two", "assistant: echo: outside two"}
	if got := saidStored(r.messages(t, ctx, c, w, id).Messages); !slices.Equal(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
}

// 9. A new session under an id the client chose: used as is where the
// runtime lets clients choose, else refused with -32602 and data saying
// why, before any process starts.
func scenarioIDs(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	chosen := uuid.NewString()
	raw, rerr := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, SessionID: chosen, AgentType: r.rt.id})
	if r.adapter.Info().ClientIDs {
		if rerr != nil {
			t.Fatalf("session/start with a chosen id: %v", rerr)
		}
		if !strings.Contains(string(raw), `"session_id":"`+chosen+`"`) {
			t.Errorf("session/start with a chosen id = %s", raw)
		}
		c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: chosen, AgentType: r.rt.id}, nil)
		return
	}
	wantError(t, "session/start with a client-chosen id", rerr, rpc.CodeInvalidParams)
	if d := errData(t, rerr); d["field"] != "session_id" || d["value"] != chosen || d["agent_type"] != r.rt.id || d["reason"] == "" {
		t.Errorf("error data %v, want field session_id, the value, agent_type %s and a reason", d, r.rt.id)
	}
	if left := r.procs(w.Path); len(left) != 0 {
		t.Errorf("the refused start left processes %v", left)
	}
	if h := r.history(t, ctx, c, w); len(h.Sessions) != 0 {
		t.Errorf("the refused start left sessions %+v", h.Sessions)
	}
}

// 10. The record initialize gave advertises nothing the scenarios did not
// prove, and its plain facts hold.
func scenarioRegistry(t *testing.T, r *scenarioRig) {
	rec := r.record
	if rec.Status != rpc.RuntimeActive || !rec.Availability.Installed || rec.Availability.Version == "" || rec.Availability.Reason != "" {
		t.Errorf("%s is not available: %+v", rec.ID, rec)
	}
	want := rpc.RuntimeMethods{History: rpc.MethodHistory, Messages: rpc.MethodMessages, Watch: rpc.MethodWatch,
		Unwatch: rpc.MethodUnwatch, Start: rpc.MethodSessionStart, Send: rpc.MethodSessionSend, Stop: rpc.MethodSessionStop,
		Input: rpc.MethodSessionInput, Respond: rpc.MethodSessionRespond, State: rpc.MethodSessionState}
	if rec.Methods != want {
		t.Errorf("methods %+v, want %+v", rec.Methods, want)
	}
	if !slices.Contains(rec.PermissionModes, rpc.PermissionDefault) {
		t.Errorf("permissionModes %v lack default, which the scenarios use", rec.PermissionModes)
	}
	// Each advertised feature and the scenarios that prove it.
	claims := []struct {
		flag   string
		on     bool
		proofs []string
	}{
		{"supportsResume", rec.SupportsResume, []string{scResume, scOutside}},
		{"supportsPermissions", rec.SupportsPermissions, []string{scPermissions}},
		{"supportsInteractiveQuestions", rec.SupportsInteractiveQuestions, []string{scQuestion}},
		{"supportsHistory", rec.SupportsHistory, []string{scReadWrites, scOutside}},
		// The suite knows no other way: the id session/start returns is final.
		{"!requiresSessionResolutionOnNewSession", !rec.RequiresSessionResolutionOnNewSession, []string{scTextTurn, scIDs}},
	}
	for _, cl := range claims {
		if !cl.on {
			continue
		}
		for _, p := range cl.proofs {
			if !r.proved[p] {
				t.Errorf("%s says %s, but %q did not pass", rec.ID, cl.flag, p)
			}
		}
	}
	if rec.RequiresSessionResolutionOnNewSession {
		t.Errorf("%s requires session resolution on new sessions: the suite proves ids final at start", rec.ID)
	}
	if !rec.SupportsPermissions && r.proved[scPermissions] {
		t.Errorf("%s passed %q but does not advertise supportsPermissions", rec.ID, scPermissions)
	}
	if !rec.SupportsResume && r.proved[scResume] {
		t.Errorf("%s passed %q but does not advertise supportsResume", rec.ID, scResume)
	}
}
