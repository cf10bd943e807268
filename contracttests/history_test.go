package contracttests

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// findFile returns the path of a file under root whose name ends with
// suffix, or "".
func findFile(t *testing.T, root, suffix string) string {
	t.Helper()
	found := ""
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), suffix) {
			found = p
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return found
}

func TestHistoryMessagesDelete(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	send(t, ctx, c, id, "hello")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	send(t, ctx, c, id, "world")
	await(t, ctx, c, rpc.EventTurnCompleted, id)

	var h rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: scripted.ID}, &h)
	i := slices.IndexFunc(h.Sessions, func(s rpc.HistorySession) bool { return s.SessionID == id })
	if i < 0 || h.Total != len(h.Sessions) {
		t.Fatalf("history = %+v, want %s listed", h, id)
	}
	hs := h.Sessions[i]
	if hs.AgentType != scripted.ID || hs.Summary != "hello" || hs.MessageCount != 4 || hs.Status != rpc.StatusRunning {
		t.Errorf("history entry = %+v, want summary hello, 4 messages, running", hs)
	}
	if _, err := time.Parse(time.RFC3339, hs.LastUpdated); err != nil {
		t.Errorf("last_updated %q: %v", hs.LastUpdated, err)
	}

	page := func(p rpc.MessagesParams) rpc.MessagesResult {
		p.WorkspaceID, p.SessionID, p.AgentType = w.ID, id, scripted.ID
		var m rpc.MessagesResult
		c.MustCall(ctx, rpc.MethodMessages, p, &m)
		return m
	}
	all := page(rpc.MessagesParams{})
	var texts []string
	for i, m := range all.Messages {
		texts = append(texts, string(m.Type)+":"+text(m.Message))
		if m.SessionID != id || m.UUID == "" || m.ID != i {
			t.Errorf("message %+v lacks ids", m)
		}
	}
	want := []string{"user:hello", "assistant:echo: hello", "user:world", "assistant:echo: world"}
	if !slices.Equal(texts, want) || all.Total != 4 || all.HasMore || all.SessionID != id || all.Limit != 50 {
		t.Errorf("messages = %v (total %d, has_more %v, limit %d), want %v", texts, all.Total, all.HasMore, all.Limit, want)
	}
	if p := page(rpc.MessagesParams{Limit: 1, Offset: 1}); len(p.Messages) != 1 || text(p.Messages[0].Message) != "echo: hello" || !p.HasMore || p.Offset != 1 {
		t.Errorf("limit 1 offset 1 = %+v", p)
	}
	if p := page(rpc.MessagesParams{Limit: 3, Order: rpc.OrderDesc}); len(p.Messages) != 3 || text(p.Messages[0].Message) != "echo: world" || !p.HasMore {
		t.Errorf("desc limit 3 = %+v", p)
	}
	_, rerr := c.Call(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: "9c6c3c0e-0000-4000-8000-000000000000"})
	wantError(t, "messages of an unknown session", rerr, rpc.CodeSessionNotFound)

	// Deleting is refused while the session runs.
	ref := rpc.SessionRefParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID}
	_, rerr = c.Call(ctx, rpc.MethodDelete, ref)
	wantError(t, "delete while running", rerr, rpc.CodeSessionBusy)

	transcript := findFile(t, e.scripted.StateDir, id+".jsonl")
	before, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatalf("the runtime's transcript: %v", err)
	}
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: scripted.ID}, nil)
	var del rpc.DeleteResult
	c.MustCall(ctx, rpc.MethodDelete, ref, &del)
	if del.Status != "deleted" || del.SessionID != id || del.WorkspaceID != w.ID {
		t.Errorf("delete = %+v", del)
	}

	// Moved to the trash, intact; gone from history and messages.
	if _, err := os.Stat(transcript); !os.IsNotExist(err) {
		t.Errorf("transcript still in place after delete (stat: %v)", err)
	}
	trashed := findFile(t, filepath.Join(e.home, "trash"), id+".jsonl")
	if after, err := os.ReadFile(trashed); err != nil || !bytes.Equal(after, before) {
		t.Errorf("trash holds %q (%v), want the transcript unchanged", trashed, err)
	}
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: scripted.ID}, &h)
	if slices.ContainsFunc(h.Sessions, func(s rpc.HistorySession) bool { return s.SessionID == id }) {
		t.Errorf("history still lists the deleted session: %+v", h)
	}
	_, rerr = c.Call(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id})
	wantError(t, "messages of a deleted session", rerr, rpc.CodeSessionNotFound)
	_, rerr = c.Call(ctx, rpc.MethodDelete, ref)
	wantError(t, "deleting twice", rerr, rpc.CodeSessionNotFound)
}

// A stopped session is historical: it resumes under the same id, with its
// history.
func TestResumeHistoricalSession(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	send(t, ctx, c, id, "remember me")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id, AgentType: scripted.ID}, nil)
	await(t, ctx, c, rpc.EventSessionStopped, id)

	var act rpc.ActivateResult
	c.MustCall(ctx, rpc.MethodActivate, rpc.SessionRefParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID}, &act)
	if !act.Success || act.SessionID != id {
		t.Errorf("activate = %+v", act)
	}
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID, ResumeSessionID: id}, &res)
	if res.SessionID != id || res.WorkspaceID != w.ID {
		t.Errorf("resume = %+v", res)
	}
	send(t, ctx, c, id, "again")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	var m rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id}, &m)
	if m.Total != 4 || text(m.Messages[0].Message) != "remember me" {
		t.Errorf("after resuming: %d messages, first %+v", m.Total, m.Messages)
	}
}
