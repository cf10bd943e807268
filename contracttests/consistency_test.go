package contracttests

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/transcript"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// Read-your-writes: once a client has received a message, or the
// turn_completed of its turn, workspace/session/messages and
// workspace/session/history include it, even when the CLI writes its
// transcript later (Claude writes a turn's lines after its result line).

// newTurn sends prompt as the first turn of a new session in w (as the iOS
// app does: session/send mode new), and returns the session id and the
// messages c received for the turn once its turn_completed arrived.
func newTurn(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, agent, prompt string) (string, []rpc.MessageEvent) {
	t.Helper()
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: w.ID, Mode: rpc.SendNew,
		Prompt: prompt, AgentType: agent}, &res)
	if res.SessionID == "" || !res.AutoCreated {
		t.Fatalf("session/send mode new = %+v", res)
	}
	return res.SessionID, turnMessages(t, ctx, c, res.SessionID, 0)
}

// nextTurn sends prompt to session id and returns the messages of that turn.
func nextTurn(t *testing.T, ctx context.Context, c *Client, id, agent, prompt string) []rpc.MessageEvent {
	t.Helper()
	after := lastSeq(c, id)
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: prompt, AgentType: agent}, &res)
	return turnMessages(t, ctx, c, id, after)
}

func lastSeq(c *Client, id string) int64 {
	var last int64
	for _, n := range c.SessionEvents(id) {
		last = max(last, n.Seq())
	}
	return last
}

// turnMessages waits for the turn_completed after seq after and returns the
// messages received between the two.
func turnMessages(t *testing.T, ctx context.Context, c *Client, id string, after int64) []rpc.MessageEvent {
	t.Helper()
	var done int64
	if err := c.Until(ctx, func(ns []Notification) bool {
		for _, n := range ns {
			if n.Header().SessionID == id && n.Seq() > after && isTerminal(n) {
				if n.Type() != rpc.EventTurnCompleted {
					t.Fatalf("the turn ended with %s", n)
				}
				done = n.Seq()
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("awaiting turn_completed: %v", err)
	}
	ms := messageEvents(t, between(c.SessionEvents(id), after+1, done))
	if len(ms) < 2 {
		t.Fatalf("the turn carried %d messages, want the prompt and an answer", len(ms))
	}
	return ms
}

// checkStored asserts, right away, that messages and history hold every
// message received so far, each once, in the order received.
func checkStored(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id, agent, summary string, seen []rpc.MessageEvent) {
	t.Helper()
	var all rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: agent,
		Limit: 500}, &all)
	ids := make([]string, len(all.Messages))
	for i, m := range all.Messages {
		ids[i] = m.UUID
		if m.ID != i {
			t.Errorf("messages: %s is at %d, its id says %d", m.UUID, i, m.ID)
		}
	}
	if all.Total != len(ids) {
		t.Errorf("messages: total %d, %d messages", all.Total, len(ids))
	}
	for i, id := range ids {
		if slices.Index(ids, id) != i {
			t.Errorf("messages: %s is listed twice: %v", id, ids)
		}
	}
	at := -1
	for _, m := range seen {
		i := slices.Index(ids, m.UUID)
		if i < 0 {
			t.Fatalf("messages lacks %s %s %q, received before; it holds %v", m.Type, m.UUID, text(m.Message), ids)
		}
		if i < at {
			t.Errorf("messages lists %s before a message received earlier: %v", m.UUID, ids)
		}
		at = i
	}

	// The newest message, newest first, and paging across whatever is
	// stored and whatever is not yet.
	var desc rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: agent,
		Limit: 1, Order: rpc.OrderDesc}, &desc)
	if len(desc.Messages) != 1 || desc.Messages[0].UUID != ids[len(ids)-1] || desc.Messages[0].ID != len(ids)-1 || desc.Total != len(ids) || !desc.HasMore {
		t.Errorf("newest message = %+v, want %s of %d", desc, ids[len(ids)-1], len(ids))
	}
	for off := range len(ids) {
		var one rpc.MessagesResult
		c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: agent,
			Limit: 1, Offset: off}, &one)
		// The transcript may grow meanwhile (Claude's late lines), never
		// change what it holds.
		if len(one.Messages) != 1 || one.Messages[0].UUID != ids[off] || one.Messages[0].ID != off {
			t.Errorf("message %d alone = %+v, want %s", off, one.Messages, ids[off])
		}
	}

	var h rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: agent}, &h)
	i := slices.IndexFunc(h.Sessions, func(s rpc.HistorySession) bool { return s.SessionID == id })
	if i < 0 {
		t.Fatalf("history lacks %s: %+v", id, h.Sessions)
	}
	if got := h.Sessions[i]; got.MessageCount < len(ids) || got.Summary != summary || got.LastUpdated == "" {
		t.Errorf("history entry = %+v, want at least %d messages and summary %q", got, len(ids), summary)
	}
}

func TestReadYourWritesWithALateTranscript(t *testing.T) {
	// The fake writes every transcript line long after printing it: all
	// that messages and history return right after turn_completed comes
	// from what cdevd streamed.
	const late = 400 * time.Millisecond
	e := startEnv(t, func(_ *daemon.Config, sc *scripted.Config) { sc.TranscriptDelay = late })
	ctx := testCtx(t)
	for _, subscribed := range []bool{false, true} {
		c := e.connect(ctx)
		w := e.workspace(ctx, c)
		if subscribed {
			c.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
		}
		id, seen := newTurn(t, ctx, c, w, scripted.ID, "first question")
		checkStored(t, ctx, c, w, id, scripted.ID, "first question", seen)
		more := nextTurn(t, ctx, c, id, scripted.ID, script(map[string]any{"message": "one"}, map[string]any{"message": "two"}))
		seen = append(seen, more...)
		checkStored(t, ctx, c, w, id, scripted.ID, "first question", seen)

		// Once the transcript holds everything, the same answers, from the
		// file alone: nothing doubled.
		path := filepath.Join(e.scripted.StateDir, transcript.EncodeDir(w.Path), id+".jsonl")
		pollUntil(t, ctx, "the late transcript", func() bool { return countLines(path) == len(seen) })
		checkStored(t, ctx, c, w, id, scripted.ID, "first question", seen)
		c.Close()
	}
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			n++
		}
	}
	return n
}

func TestClaudeReadYourWrites(t *testing.T) {
	// The real CLI writes a turn's transcript lines 40-85 ms after its
	// result line (on the first turn the file does not exist yet): asked at
	// once, messages and history must still hold the turn. Repeated, since
	// it was a race that most runs lost.
	r := newClaudeRig(t)
	r.respond(t, func(req fakeanthropic.Request) fakeanthropic.Reply { return fakeanthropic.Echo(req) })
	ctx := testCtx(t)
	const rounds = 6
	for i := range rounds {
		subscribed := i%2 == 1
		c, _ := Connect(t, ctx, r.url, r.token)
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var w rpc.Workspace
		c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
		if subscribed {
			c.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
		}
		prompt := "question number " + string(rune('A'+i))
		id, seen := newTurn(t, ctx, c, w, claude.ID, prompt)
		checkStored(t, ctx, c, w, id, claude.ID, prompt, seen)
		seen = append(seen, nextTurn(t, ctx, c, id, claude.ID, "and a second one")...)
		checkStored(t, ctx, c, w, id, claude.ID, prompt, seen)
		c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: claude.ID}, nil)
		c.Close()
	}
}
