package contracttests

import (
	"context"
	"testing"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// After the daemon restarts, a session of the last run is historical: the
// workspace is still there, history lists the session, and a client
// resumes it the way the iOS client does, by activating it and sending to
// its id, with no workspace_id.
func TestResumeAfterDaemonRestart(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	same := func(dc *daemon.Config, sc *scripted.Config) { dc.Home, sc.StateDir = home, state }
	ctx := testCtx(t)

	first := startEnv(t, same)
	c := first.connect(ctx)
	w := first.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	send(t, ctx, c, id, "before the restart")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	c.Close()
	if err := first.d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	second := startEnv(t, same)
	c = second.connect(ctx)
	var list rpc.WorkspaceListResult
	c.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, &list)
	if len(list.Workspaces) != 1 || list.Workspaces[0].ID != w.ID {
		t.Fatalf("workspaces after restart = %+v", list.Workspaces)
	}
	var h rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: scripted.ID}, &h)
	if len(h.Sessions) != 1 || h.Sessions[0].SessionID != id || h.Sessions[0].Status != rpc.StatusHistorical {
		t.Fatalf("history after restart = %+v", h.Sessions)
	}
	c.MustCall(ctx, rpc.MethodActivate, rpc.SessionRefParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID}, nil)
	send(t, ctx, c, id, "after the restart")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	var m rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: scripted.ID}, &m)
	if m.Total != 4 || text(m.Messages[0].Message) != "before the restart" || text(m.Messages[2].Message) != "after the restart" {
		t.Fatalf("resumed transcript: %d messages %+v", m.Total, m.Messages)
	}
}
