package contracttests

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/transcript"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// These tests run the real Claude Code CLI (node_modules/.bin/claude; a
// missing CLI fails them) through an in-process cdevd against the scripted
// fake Anthropic API, and talk to cdevd only over the WebSocket. One daemon,
// one fake API and one CLI home serve every subtest, as on a user's machine;
// the subtests run in order and later ones use the sessions earlier ones made.

func TestClaudeThroughCdevd(t *testing.T) {
	r := newClaudeRig(t)
	ctx := testCtx(t)
	setup, _ := Connect(t, ctx, r.url, r.token)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var w rpc.Workspace
	setup.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)

	// The conversation of the first three subtests: one session, one
	// process for two turns, then a resumed one.
	var conv struct {
		id     string
		pid    int
		answer string // the id of the first answer, as streamed
		prompt string // the id of the first prompt, as streamed
	}
	needConv := func(t *testing.T) {
		if conv.id == "" {
			t.Fatal("no conversation: the text turn failed")
		}
	}
	// Sessions made here, oldest first, for the history.
	var made []string

	t.Run("registry", func(t *testing.T) {
		ctx := testCtx(t)
		_, init := Connect(t, ctx, r.url, r.token)
		reg := init.Capabilities.RuntimeRegistry
		if reg.DefaultRuntime != claude.ID || !slices.Equal(init.Capabilities.SupportedAgents, []string{claude.ID}) ||
			len(reg.Runtimes) != 1 {
			t.Fatalf("registry = %+v, supported agents %v", reg, init.Capabilities.SupportedAgents)
		}
		rt := reg.Runtimes[0]
		if rt.ID != claude.ID || rt.Status != rpc.RuntimeActive || !rt.Availability.Installed ||
			!strings.HasPrefix(rt.Availability.Version, "2.1.197") || rt.Availability.Reason != "" {
			t.Errorf("claude runtime = %+v", rt)
		}
		// Each flag is proven over the wire by a subtest below:
		// supportsResume by "resume after kill" and by "outside cdevd";
		// supportsPermissions by "permission, two clients";
		// supportsInteractiveQuestions by "question";
		// no session resolution by "text turn", whose id is final at start.
		if !rt.SupportsResume || !rt.SupportsPermissions || !rt.SupportsInteractiveQuestions ||
			rt.RequiresSessionResolutionOnNewSession {
			t.Errorf("claude flags = %+v", rt)
		}
		// Every mode maps onto the CLI's --permission-mode (runtimes/claude/args.go).
		var modes []string
		for _, m := range rt.PermissionModes {
			modes = append(modes, string(m))
		}
		if want := rpc.PermissionMode("").Enum(); !slices.Equal(modes, want) {
			t.Errorf("claude permissionModes = %v, want all of %v", modes, want)
		}
	})

	t.Run("text turn", func(t *testing.T) {
		ctx := testCtx(t)
		c, init := Connect(t, ctx, r.url, r.token)
		id, pid := claudeStart(t, ctx, c, w)
		// The id is final at once: the session answers to it before the CLI said anything.
		if st := state(t, ctx, c, id); st.SessionID != id || !st.IsRunning || st.Status != rpc.StatusRunning {
			t.Errorf("session/state right after start = %+v", st)
		}
		claudeSend(t, ctx, c, id, "hello")
		end := await(t, ctx, c, rpc.EventTurnCompleted, id)
		var tc rpc.TurnCompletedEvent
		if err := end.Decode(&tc); err != nil {
			t.Fatal(err)
		}
		if tc.StopReason != "end_turn" || tc.Usage.InputTokens == 0 || tc.Usage.OutputTokens == 0 {
			t.Errorf("turn_completed = %+v", tc)
		}

		evs := between(c.SessionEvents(id), 1, end.Seq()+1)
		checkSeqs(t, evs, 1, init.Epoch)
		if evs[0].Type() != rpc.EventSessionStart {
			t.Errorf("first event is %s, want session_start", evs[0].Type())
		}
		if n := count(evs, isTerminal); n != 1 {
			t.Errorf("%d terminal events in one turn: %v", n, types(evs))
		}
		var deltas []string
		var states []rpc.PtyState
		var lastDelta int64
		for _, n := range evs {
			switch n.Type() {
			case rpc.EventMessageDelta:
				var d rpc.MessageDeltaEvent
				_ = n.Decode(&d)
				if d.Phase != rpc.PhaseText || !strings.HasPrefix(d.MessageID, "msg_fake_") {
					t.Errorf("message_delta = %+v", d)
				}
				deltas, lastDelta = append(deltas, d.Text), d.Seq
			case rpc.EventState:
				var s rpc.StateEvent
				_ = n.Decode(&s)
				states = append(states, s.State)
			}
		}
		if len(deltas) < 2 || strings.Join(deltas, "") != "echo: hello" {
			t.Errorf("message_delta texts %q, want several spelling %q", deltas, "echo: hello")
		}
		if !slices.Equal(states, []rpc.PtyState{rpc.PtyThinking, rpc.PtyIdle}) {
			t.Errorf("pty_state sequence %v, want [thinking idle]", states)
		}
		msgs := messageEvents(t, evs)
		if got := saidLive(msgs); !slices.Equal(got, []string{"user: hello", "assistant: echo: hello"}) {
			t.Errorf("claude_message events say %q", got)
		}
		seen := map[string]bool{}
		for _, m := range msgs {
			if seen[m.ID] || seen[m.UUID] {
				t.Errorf("message %s (uuid %s) emitted twice", m.ID, m.UUID)
			}
			seen[m.ID], seen[m.UUID] = true, true
			if m.Type == rpc.MessageAssistant && m.Seq < lastDelta {
				t.Errorf("the complete answer (seq %d) came before its last delta (seq %d)", m.Seq, lastDelta)
			}
		}

		// The CLI stores the session under the id cdevd gave at start.
		pollUntil(t, ctx, "transcript named after "+id, func() bool {
			files, _ := filepath.Glob(filepath.Join(r.transcripts(), "*", id+".jsonl"))
			return len(files) == 1
		})
		conv.id, conv.pid, conv.answer, conv.prompt = id, pid, msgs[len(msgs)-1].UUID, msgs[0].UUID
		made = append(made, id)
	})

	t.Run("second turn in the same process", func(t *testing.T) {
		needConv(t)
		ctx := testCtx(t)
		c, _ := Connect(t, ctx, r.url, r.token)
		claudeWatch(t, ctx, c, w, conv.id)
		claudeSend(t, ctx, c, conv.id, "second")
		await(t, ctx, c, rpc.EventTurnCompleted, conv.id)
		if got := saidLive(messageEvents(t, c.SessionEvents(conv.id))); !slices.Equal(got, []string{"user: second", "assistant: echo: second"}) {
			t.Errorf("claude_message events say %q", got)
		}
		if st := state(t, ctx, c, conv.id); !st.IsRunning || st.Status != rpc.StatusRunning || st.Activity != rpc.ActivityIdle {
			t.Errorf("session/state after the second turn = %+v", st)
		}
		if pids := children(t, w.Path); !slices.Equal(pids, []int{conv.pid}) {
			t.Errorf("CLIs in the workspace %v, want the first turn's %d alone", pids, conv.pid)
		}
		req := r.lastRequest(t)
		if h := req.Transcript(); !strings.Contains(h, "user: hello\n") || !strings.Contains(h, "assistant: echo: hello\n") ||
			req.LastUserText() != "second" {
			t.Errorf("the model did not see the first turn:\n%s", h)
		}
	})

	t.Run("resume after kill", func(t *testing.T) {
		needConv(t)
		ctx := testCtx(t)
		c, init := Connect(t, ctx, r.url, r.token)
		// SIGKILL loses what the CLI has not written yet: wait for the
		// second turn to be in its transcript file (messages already shows
		// it, from what cdevd streamed).
		file := filepath.Join(r.transcripts(), transcript.EncodeDir(w.Path), conv.id+".jsonl")
		pollUntil(t, ctx, "the second answer stored", func() bool {
			b, _ := os.ReadFile(file)
			return bytes.Contains(b, []byte("echo: second"))
		})
		last := claudeWatch(t, ctx, c, w, conv.id)
		if err := syscall.Kill(conv.pid, syscall.SIGKILL); err != nil { // the CLI crashes
			t.Fatal(err)
		}
		var end rpc.SessionEndEvent
		if err := await(t, ctx, c, rpc.EventSessionEnd, conv.id).Decode(&end); err != nil {
			t.Fatal(err)
		}
		if end.ExitCode == nil || *end.ExitCode == 0 {
			t.Errorf("session_end of a killed CLI = %+v", end)
		}
		if st := state(t, ctx, c, conv.id); st.IsRunning {
			t.Errorf("session/state after the kill = %+v", st)
		}
		awaitNoChildren(t, ctx, w.Path)

		claudeSend(t, ctx, c, conv.id, "third")
		pid := spawnedChild(t, nil, w.Path)
		if args := procArgs(t, pid); !slices.Contains(args, "--resume="+conv.id) {
			t.Errorf("the new CLI runs %q, want --resume=%s", args, conv.id)
		}
		await(t, ctx, c, rpc.EventTurnCompleted, conv.id)
		evs := c.SessionEvents(conv.id)
		checkSeqs(t, evs, last+1, init.Epoch)
		if got := saidLive(messageEvents(t, evs)); !slices.Equal(got, []string{"user: third", "assistant: echo: third"}) {
			t.Errorf("claude_message events say %q", got)
		}
		if st := state(t, ctx, c, conv.id); !st.IsRunning || st.Status != rpc.StatusRunning {
			t.Errorf("session/state after the resumed turn = %+v", st)
		}
		req := r.lastRequest(t)
		if h := req.Transcript(); !strings.Contains(h, "user: hello\n") || !strings.Contains(h, "assistant: echo: second\n") ||
			req.LastUserText() != "third" {
			t.Errorf("the resumed model did not see the earlier turns:\n%s", h)
		}
		conv.pid = pid
	})

	t.Run("permission, two clients", func(t *testing.T) {
		ctx := testCtx(t)
		a, initA := Connect(t, ctx, r.url, r.token)
		b, initB := Connect(t, ctx, r.url, r.token)
		id, _ := claudeStart(t, ctx, a, w)
		made = append(made, id)
		claudeWatch(t, ctx, b, w, id)

		// Allowed by b: the command runs.
		const command = "echo allowed > allowed.txt"
		r.respond(t, callTool("Bash", map[string]string{"command": command, "description": "Create allowed.txt"}))
		claudeSend(t, ctx, a, id, "create allowed.txt")
		p := bothAsked(t, ctx, a, b, id)
		if p.Type != rpc.PermBash || p.ToolName != "Bash" || p.Target != command || p.Description != "Create allowed.txt" ||
			p.Preview != command {
			t.Errorf("pty_permission = %+v", p)
		}
		var keys []string
		for _, o := range p.Options {
			keys = append(keys, o.Key)
		}
		if !slices.Equal(keys, []string{"yes", "always", "no"}) {
			t.Errorf("options %v, want yes, always, no", keys)
		}
		if st := state(t, ctx, a, id); !st.WaitingForInput || st.Activity != rpc.ActivityPermission ||
			len(st.Pending) != 1 || st.Pending[0].RequestID != p.RequestID {
			t.Errorf("session/state while asking = %+v", st)
		}
		var ok rpc.StatusResult
		b.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
			Response: "yes", RequestID: p.RequestID, AgentType: claude.ID}, &ok)
		if ok.Status != "responded" {
			t.Errorf("session/respond = %+v", ok)
		}
		bothResolved(t, ctx, a, b, id, p.RequestID, "allow", initB.ClientID)
		for _, c := range []*Client{a, b} {
			await(t, ctx, c, rpc.EventTurnCompleted, id)
		}
		if got, err := os.ReadFile(filepath.Join(w.Path, "allowed.txt")); err != nil || string(got) != "allowed\n" {
			t.Errorf("allowed.txt = %q, %v: the allowed command did not run", got, err)
		}
		if res := r.lastToolResult(t); res.IsError {
			t.Errorf("the allowed call failed: %s", res.ResultText())
		}

		// Refused by a with the escape key: the file is not written and
		// the model hears of the denial.
		denied := filepath.Join(w.Path, "denied.txt")
		r.respond(t, callTool("Write", map[string]string{"file_path": denied, "content": "no\n"}))
		claudeSend(t, ctx, a, id, "create denied.txt")
		p = bothAsked(t, ctx, a, b, id)
		if p.Type != rpc.PermWrite || p.ToolName != "Write" || p.Target != denied || p.Preview != "no\n" {
			t.Errorf("pty_permission = %+v", p)
		}
		a.MustCall(ctx, rpc.MethodSessionInput, rpc.SessionInputParams{SessionID: id, Key: "escape", AgentType: claude.ID}, &ok)
		if ok.Status != "sent" {
			t.Errorf("session/input = %+v", ok)
		}
		bothResolved(t, ctx, a, b, id, p.RequestID, "deny", initA.ClientID)
		for _, c := range []*Client{a, b} {
			await(t, ctx, c, rpc.EventTurnCompleted, id)
		}
		if _, err := os.Stat(denied); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("denied.txt exists (%v)", err)
		}
		if res := r.lastToolResult(t); !res.IsError || !strings.Contains(res.ResultText(), "denied") {
			t.Errorf("the model was not told of the denial: %+v %q", res, res.ResultText())
		}
	})

	t.Run("question", func(t *testing.T) {
		ctx := testCtx(t)
		c, init := Connect(t, ctx, r.url, r.token)
		id, _ := claudeStart(t, ctx, c, w)
		made = append(made, id)
		r.respond(t, callTool("AskUserQuestion", map[string]any{"questions": []any{map[string]any{
			"question": "Which color?", "header": "Color", "multiSelect": false,
			"options": []any{
				map[string]string{"label": "red", "description": "warm"},
				map[string]string{"label": "blue", "description": "cold"},
			},
		}}}))
		claudeSend(t, ctx, c, id, "ask me")

		var q rpc.QuestionEvent
		if err := await(t, ctx, c, rpc.EventQuestion, id).Decode(&q); err != nil {
			t.Fatal(err)
		}
		if len(q.Questions) != 1 || q.Questions[0].Question != "Which color?" || len(q.Questions[0].Options) != 2 ||
			q.Questions[0].Options[1].Label != "blue" || q.RequestID == "" {
			t.Fatalf("question = %+v", q)
		}
		if err := c.Until(ctx, func(ns []Notification) bool {
			return slices.ContainsFunc(ns, func(n Notification) bool {
				var s rpc.StateEvent
				return Event(rpc.EventState, id)(n) && n.Decode(&s) == nil && s.State == rpc.PtyQuestion && s.WaitingForInput
			})
		}); err != nil {
			t.Errorf("no pty_state question: %v", err)
		}
		if st := state(t, ctx, c, id); st.Activity != rpc.ActivityQuestion || len(st.Pending) != 1 ||
			st.Pending[0].Type != rpc.RespondQuestion {
			t.Errorf("session/state while asking = %+v", st)
		}
		c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondQuestion,
			Response: q.Questions[0].Options[1].Key, RequestID: q.RequestID, AgentType: claude.ID}, nil)
		var res rpc.PermissionResolvedEvent
		if err := await(t, ctx, c, rpc.EventPermissionResolved, id).Decode(&res); err != nil {
			t.Fatal(err)
		}
		if res.RequestID != q.RequestID || res.Decision != "answered" || res.ResolvedBy != init.ClientID {
			t.Errorf("pty_permission_resolved = %+v", res)
		}
		await(t, ctx, c, rpc.EventTurnCompleted, id)
		if b := r.lastToolResult(t); b.IsError || !strings.Contains(b.ResultText(), `"Which color?"="blue"`) {
			t.Errorf("the model did not get the answer: %q", b.ResultText())
		}
	})

	t.Run("stop during a slow stream", func(t *testing.T) {
		ctx := testCtx(t)
		c, _ := Connect(t, ctx, r.url, r.token)
		// A workspace of its own, so that its processes are this session's alone.
		var w2 rpc.Workspace
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: d}, &w2)
		r.respond(t, func(req fakeanthropic.Request) fakeanthropic.Reply {
			if !req.HasTool("Bash") {
				return fakeanthropic.Echo(req)
			}
			return fakeanthropic.Slow(strings.Repeat("slow ", 300), 50*time.Millisecond)
		})
		id, pid := claudeStart(t, ctx, c, w2)
		pgid, err := syscall.Getpgid(pid)
		if err != nil {
			t.Fatal(err)
		}
		claudeSend(t, ctx, c, id, "talk slowly")
		await(t, ctx, c, rpc.EventMessageDelta, id)

		var res rpc.SessionStopResult
		c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: claude.ID}, &res)
		if !res.Success || res.Status != "stopped" || res.SessionID != id {
			t.Errorf("session/stop = %+v", res)
		}
		await(t, ctx, c, rpc.EventSessionStopped, id)
		// session/stop returns once the process group is gone.
		if pids := children(t, w2.Path); len(pids) != 0 || !groupGone(pgid) {
			t.Errorf("after stop: processes %v in the workspace, group %d gone: %v", pids, pgid, groupGone(pgid))
		}
		st := state(t, ctx, c, id)
		if st.Status != rpc.StatusStopped || st.IsRunning || st.WaitingForInput {
			t.Errorf("session/state after stop = %+v", st)
		}
		awaitSeq(t, ctx, c, id, st.LastSeq)
		evs := c.SessionEvents(id)
		if n := count(evs, isTerminal); n != 1 || evs[len(evs)-1].Type() != rpc.EventSessionStopped {
			t.Errorf("events of the stopped turn %v: want session_stopped as its one terminal event, last", types(evs))
		}
	})

	t.Run("history and messages", func(t *testing.T) {
		if len(made) != 3 {
			t.Fatalf("sessions made %v: an earlier subtest failed", made)
		}
		ctx := testCtx(t)
		c, _ := Connect(t, ctx, r.url, r.token)
		var h rpc.HistoryResult
		c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: claude.ID}, &h)
		var ids, summaries []string
		for i, s := range h.Sessions {
			ids, summaries = append(ids, s.SessionID), append(summaries, s.Summary)
			if i > 0 && s.LastUpdated > h.Sessions[i-1].LastUpdated {
				t.Errorf("history is not newest first: %+v", h.Sessions)
			}
		}
		newestFirst := slices.Clone(made)
		slices.Reverse(newestFirst)
		if !slices.Equal(ids, newestFirst) || h.Total != len(made) {
			t.Fatalf("history lists %v (total %d), want %v", ids, h.Total, newestFirst)
		}
		// Summaries are the first prompts: the fake API makes up no titles.
		if !slices.Equal(summaries, []string{"ask me", "create allowed.txt", "hello"}) {
			t.Errorf("history summaries %q", summaries)
		}
		conversation := h.Sessions[2]
		if conversation.AgentType != claude.ID || conversation.Status != rpc.StatusRunning {
			t.Errorf("history entry of the conversation = %+v", conversation)
		}

		all := pageMessages(t, ctx, c, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: conv.id, Limit: 500})
		want := []string{"user: hello", "assistant: echo: hello", "user: second", "assistant: echo: second",
			"user: third", "assistant: echo: third"}
		if got := saidPaged(all.Messages); !slices.Equal(got, want) {
			t.Errorf("stored conversation %q, want %q", got, want)
		}
		// The prompt and the answer are stored under the uuids they were
		// streamed with, so a client merging history with live events
		// shows each once.
		if i := slices.IndexFunc(all.Messages, func(m rpc.PagedMessage) bool { return m.UUID == conv.prompt }); i != 0 {
			t.Errorf("the first prompt, streamed as %s, is stored at %d", conv.prompt, i)
		}
		if i := slices.IndexFunc(all.Messages, func(m rpc.PagedMessage) bool { return m.UUID == conv.answer }); i != 1 {
			t.Errorf("the first answer, streamed as %s, is stored at %d", conv.answer, i)
		}
		if all.Total != len(all.Messages) || all.HasMore || conversation.MessageCount != all.Total {
			t.Errorf("messages total %d of %d listed (has_more %v); history counts %d",
				all.Total, len(all.Messages), all.HasMore, conversation.MessageCount)
		}
		first := pageMessages(t, ctx, c, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: conv.id, Limit: 2, Order: rpc.OrderAsc})
		if !first.HasMore || first.Total != all.Total || first.Offset != 0 || first.Limit != 2 ||
			!slices.Equal(messageIDs(first.Messages), messageIDs(all.Messages[:2])) {
			t.Errorf("first page asc = %+v", first)
		}
		newest := pageMessages(t, ctx, c, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: conv.id, Limit: 2, Order: rpc.OrderDesc})
		wantNewest := slices.Clone(all.Messages[all.Total-2:])
		slices.Reverse(wantNewest)
		if !newest.HasMore || !slices.Equal(messageIDs(newest.Messages), messageIDs(wantNewest)) {
			t.Errorf("first page desc = %+v, want %v", newest, messageIDs(wantNewest))
		}
		tail := pageMessages(t, ctx, c, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: conv.id, Limit: 2,
			Offset: all.Total - 2, Order: rpc.OrderAsc})
		if tail.HasMore || !slices.Equal(messageIDs(tail.Messages), messageIDs(all.Messages[all.Total-2:])) {
			t.Errorf("last page asc = %+v", tail)
		}
	})

	t.Run("outside cdevd", func(t *testing.T) {
		ctx := testCtx(t)
		c, _ := Connect(t, ctx, r.url, r.token)
		id := uuid.NewString()
		if got := r.runOutside(t, ctx, w.Path, "outside one", "--session-id", id); got != "echo: outside one" {
			t.Fatalf("the outside run answered %q", got)
		}
		var res rpc.WatchResult
		c.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: claude.ID}, &res)
		if !res.Watching || res.LastSeq != 0 || res.Gap {
			t.Errorf("watch of the outside session = %+v", res)
		}
		if got := r.runOutside(t, ctx, w.Path, "outside two", "--resume", id); got != "echo: outside two" {
			t.Fatalf("the resumed outside run answered %q", got)
		}
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

		var h rpc.HistoryResult
		c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: claude.ID}, &h)
		if len(h.Sessions) == 0 || h.Sessions[0].SessionID != id || h.Sessions[0].MessageCount != 4 {
			t.Errorf("history %+v, want the outside session first with its 4 messages", h.Sessions)
		}
	})
}
