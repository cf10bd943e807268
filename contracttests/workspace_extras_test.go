package contracttests

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// workspace/status as the app decodes it (IOS-APP.md: all optional but
// each session's id, workspace_id and status).
type appWorkspaceStatus struct {
	WorkspaceID   *string `json:"workspace_id"`
	WorkspaceName *string `json:"workspace_name"`
	Path          *string `json:"path"`
	Sessions      []struct {
		ID          *string `json:"id" app:"required"`
		WorkspaceID *string `json:"workspace_id" app:"required"`
		Status      *string `json:"status" app:"required"`
	} `json:"sessions"`
	ActiveSessionCount *int    `json:"active_session_count"`
	HasActiveSession   *bool   `json:"has_active_session"`
	GitRepoName        *string `json:"git_repo_name"`
	IsGitRepo          *bool   `json:"is_git_repo"`
	IsBeingWatched     *bool   `json:"is_being_watched"`
	WatchedSessionID   *string `json:"watched_session_id"`
}

// workspace_removed as the app decodes it: its three fields, an agent_type
// of a runtime the app has open, and no session_id.
type appWorkspaceRemoved struct {
	ID        *string         `json:"id" app:"required"`
	Name      *string         `json:"name" app:"required"`
	Path      *string         `json:"path" app:"required"`
	AgentType *string         `json:"agent_type" app:"required"`
	SessionID json.RawMessage `json:"session_id"`
}

func TestWorkspaceStatusAndRemoval(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	status := func() appWorkspaceStatus {
		t.Helper()
		raw, err := c.Call(ctx, rpc.MethodWorkspaceStatus, json.RawMessage(`{"workspace_id":"`+w.ID+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var st appWorkspaceStatus
		appDecode(t, "workspace/status", raw, &st)
		return st
	}
	if st := status(); *st.WorkspaceID != w.ID || *st.Path != w.Path || len(st.Sessions) != 0 || *st.HasActiveSession ||
		*st.IsBeingWatched || st.WatchedSessionID != nil {
		t.Errorf("a new workspace: %+v", st)
	}
	id := startSession(t, ctx, c, w)
	c.MustCall(ctx, rpc.MethodFocus, rpc.FocusParams{WorkspaceID: w.ID, SessionID: id}, nil)
	st := status()
	if len(st.Sessions) != 1 || *st.Sessions[0].ID != id || *st.ActiveSessionCount != 1 || !*st.HasActiveSession ||
		!*st.IsBeingWatched || st.WatchedSessionID == nil || *st.WatchedSessionID != id {
		t.Errorf("with a session viewed: %+v", st)
	}
	for _, bad := range []struct {
		params any
		code   int64
	}{
		{rpc.WorkspaceIDParams{}, rpc.CodeInvalidParams},
		{rpc.WorkspaceIDParams{WorkspaceID: "ws_nope"}, rpc.CodeWorkspaceNotFound},
		{map[string]any{"workspace_id": 3}, rpc.CodeInvalidParams},
	} {
		if _, err := c.Call(ctx, rpc.MethodWorkspaceStatus, bad.params); err == nil || err.Code != bad.code {
			t.Errorf("status %+v = %v, want %d", bad.params, err, bad.code)
		}
	}

	// Removed: its subscribers hear it, in the shape the app accepts.
	other := e.connect(ctx)
	other.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
	c.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
	c.MustCall(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
	for _, cl := range []*Client{c, other} {
		n, err := cl.Await(ctx, func(n Notification) bool { return n.Type() == rpc.EventWorkspaceRemoved })
		if err != nil {
			t.Fatalf("no workspace_removed: %v", err)
		}
		var ev appWorkspaceRemoved
		appDecode(t, "workspace_removed", n.Params, &ev)
		if *ev.ID != w.ID || *ev.Path != w.Path || *ev.Name != w.Name || *ev.AgentType != scripted.ID || ev.SessionID != nil {
			t.Errorf("workspace_removed %s", n.Params)
		}
	}
	if _, err := c.Call(ctx, rpc.MethodWorkspaceStatus, rpc.WorkspaceIDParams{WorkspaceID: w.ID}); err == nil || err.Code != rpc.CodeWorkspaceNotFound {
		t.Errorf("status of a removed workspace: %v", err)
	}
}

// workspace/discover as the app calls it, with folders it names: a
// repository is found (configured or not), a bad folder is refused.
func TestWorkspaceDiscover(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	root := tempDir(t)
	for _, name := range []string{"one", "two"} {
		cmd := exec.Command("git", "init", "-q", filepath.Join(root, name))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init (git is required): %v\n%s", err, out)
		}
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: filepath.Join(root, "one")}, &w)
	raw, err := c.Call(ctx, rpc.MethodWorkspaceDiscover, json.RawMessage(`{"paths":["`+root+`","`+filepath.Join(root, "missing")+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Repositories []struct {
			Name         *string `json:"name" app:"required"`
			Path         *string `json:"path" app:"required"`
			RemoteURL    *string `json:"remote_url"`
			LastModified *string `json:"last_modified"`
			IsConfigured *bool   `json:"is_configured" app:"required"`
		} `json:"repositories" app:"required"`
		Count             *int     `json:"count" app:"required"`
		Cached            *bool    `json:"cached"`
		RefreshInProgress *bool    `json:"refresh_in_progress"`
		SkippedPaths      []string `json:"skipped_paths"`
	}
	appDecode(t, "workspace/discover", raw, &res)
	configured := map[string]bool{}
	for _, r := range res.Repositories {
		configured[*r.Name] = *r.IsConfigured
	}
	if *res.Count != 2 || len(configured) != 2 || !configured["one"] || configured["two"] || *res.Cached ||
		len(res.SkippedPaths) != 1 {
		t.Errorf("discover: %s", raw)
	}
	if _, err := c.Call(ctx, rpc.MethodWorkspaceDiscover, rpc.RepoDiscoverParams{Paths: []string{"relative"}}); err == nil || err.Code != rpc.CodeInvalidParams {
		t.Errorf("a relative folder: %v", err)
	}
}
