package contracttests

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// A session may run in a directory below its workspace, never outside it;
// what it leaves behind is found like any other session of the workspace.
func TestSessionCwdInsideTheWorkspaceOnly(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(w.Path, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Path, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Path, "file.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for cwd, code := range map[string]int64{
		"../..":    rpc.CodePathOutside,
		outside:    rpc.CodePathOutside,
		"escape":   rpc.CodePathOutside, // a symlink inside that leads out
		"missing":  rpc.CodeInvalidPath,
		"file.txt": rpc.CodeInvalidPath, // not a directory
	} {
		_, rerr := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID, Cwd: cwd})
		wantError(t, "session/start with cwd "+cwd, rerr, code)
	}
	if len(children(t, w.Path)) != 0 || len(children(t, outside)) != 0 {
		t.Fatal("a refused start left a process")
	}

	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID, Cwd: "sub"}, &res)
	send(t, ctx, c, res.SessionID, "hello from below")
	await(t, ctx, c, rpc.EventTurnCompleted, res.SessionID)

	var h rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: scripted.ID}, &h)
	if !slices.ContainsFunc(h.Sessions, func(s rpc.HistorySession) bool { return s.SessionID == res.SessionID && s.MessageCount > 0 }) {
		t.Fatalf("history %+v does not list the session run in sub/", h.Sessions)
	}
	var m rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: res.SessionID, AgentType: scripted.ID}, &m)
	if m.Total == 0 {
		t.Fatalf("messages of the session run in sub/ = %+v", m)
	}
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: res.SessionID, AgentType: scripted.ID}, nil)
	var del rpc.DeleteResult
	c.MustCall(ctx, rpc.MethodDelete, rpc.SessionRefParams{WorkspaceID: w.ID, SessionID: res.SessionID, AgentType: scripted.ID}, &del)
	if del.Status != "deleted" {
		t.Fatalf("delete = %+v", del)
	}
}
