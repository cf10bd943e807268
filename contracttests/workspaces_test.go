package contracttests

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

func listWorkspaces(t *testing.T, ctx context.Context, c *Client) map[string]rpc.Workspace {
	t.Helper()
	var res rpc.WorkspaceListResult
	c.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{IncludeGit: true, GitLimit: 5}, &res)
	m := map[string]rpc.Workspace{}
	for _, w := range res.Workspaces {
		m[w.ID] = w
	}
	return m
}

func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWorkspaceLifecycle(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir := tempDir(t)

	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.Call(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
	})
	if w.ID == "" || w.Path != dir || w.Name != filepath.Base(dir) {
		t.Errorf("workspace/add = %+v, want an id, path %s and name %s", w, dir, filepath.Base(dir))
	}
	if _, err := time.Parse(time.RFC3339, w.CreatedAt); err != nil {
		t.Errorf("created_at %q: %v", w.CreatedAt, err)
	}

	// The same directory, however it is spelled, is the same workspace.
	for _, p := range []string{dir, dir + "/", filepath.Join(dir, "..", filepath.Base(dir))} {
		var again rpc.Workspace
		c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: p, Name: "other name"}, &again)
		if again.ID != w.ID || again.Path != w.Path || again.Name != w.Name {
			t.Errorf("adding %s again = %+v, want the existing %+v", p, again, w)
		}
	}

	var got rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceGet, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, &got)
	if got.ID != w.ID || got.Path != w.Path || got.Name != w.Name || got.CreatedAt != w.CreatedAt {
		t.Errorf("workspace/get = %+v, want %+v", got, w)
	}
	if lw, ok := listWorkspaces(t, ctx, c)[w.ID]; !ok || lw.Path != dir {
		t.Errorf("workspace/list has %+v (present %v), want %+v", lw, ok, w)
	}

	var ok rpc.SuccessResult
	c.MustCall(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, &ok)
	if !ok.Success {
		t.Errorf("workspace/remove = %+v", ok)
	}
	if _, present := listWorkspaces(t, ctx, c)[w.ID]; present {
		t.Errorf("workspace %s still listed after remove", w.ID)
	}
	for _, m := range []string{rpc.MethodWorkspaceGet, rpc.MethodWorkspaceRemove} {
		_, rerr := c.Call(ctx, m, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
		wantError(t, m+" of a removed workspace", rerr, rpc.CodeWorkspaceNotFound)
		if got := errData(t, rerr)["workspace_id"]; got != w.ID {
			t.Errorf("%s: data.workspace_id = %v, want %s", m, got, w.ID)
		}
	}
	// Removing forgets the workspace, not the directory.
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("directory gone after workspace/remove: %v", err)
	}
}

func TestWorkspaceAddName(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir := tempDir(t)
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir, Name: "My Project"}, &w)
	t.Cleanup(func() {
		c.Call(context.Background(), rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
	})
	if w.Name != "My Project" {
		t.Errorf("name = %q, want My Project", w.Name)
	}
}

func TestWorkspaceSymlinkResolved(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	target := tempDir(t)
	link := filepath.Join(tempDir(t), "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	var viaLink, direct rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: link}, &viaLink)
	t.Cleanup(func() {
		c.Call(context.Background(), rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: viaLink.ID})
	})
	if viaLink.Path != target {
		t.Errorf("added through a symlink: path %q, want the target %q", viaLink.Path, target)
	}
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: target}, &direct)
	if direct.ID != viaLink.ID {
		t.Errorf("target and symlink gave ids %s and %s, want one workspace", direct.ID, viaLink.ID)
	}
}

func TestWorkspaceAddRefused(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir := tempDir(t)
	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), file, "relative/path"} {
		_, rerr := c.Call(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: p})
		wantError(t, "workspace/add "+p, rerr, rpc.CodeInvalidPath)
		data := errData(t, rerr)
		if data["path"] != p || data["reason"] == "" {
			t.Errorf("workspace/add %s: data %v, want the path and a reason", p, data)
		}
	}
	_, rerr := c.Call(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{})
	wantError(t, "workspace/add without a path", rerr, rpc.CodeInvalidParams)
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a refused add created the directory (stat: %v)", err)
	}
}

func TestWorkspaceCreateIfMissing(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	dir := filepath.Join(tempDir(t), "new", "project")
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir, CreateIfMissing: true}, &w)
	t.Cleanup(func() {
		c.Call(context.Background(), rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
	})
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("create_if_missing did not create %s: %v", dir, err)
	}
	if w.Path != dir || w.Name != "project" {
		t.Errorf("workspace = %+v, want path %s named project", w, dir)
	}
}

func TestWorkspacesPersistAcrossRestart(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	var named rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: tempDir(t), Name: "named"}, &named)
	token := e.token
	if err := e.d.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	// Same home, new process: same token, same workspaces.
	d := StartDaemon(t, daemon.Config{Home: e.home, Adapters: []runtimes.Adapter{scripted.New(e.scripted)}})
	if d.Token() != token {
		t.Errorf("token changed across a restart with the same home")
	}
	c2 := Dial(t, ctx, d.URL(), d.Token())
	c2.Initialize(ctx)
	list := listWorkspaces(t, ctx, c2)
	for _, want := range []rpc.Workspace{w, named} {
		got, ok := list[want.ID]
		if !ok || got.Path != want.Path || got.Name != want.Name || got.CreatedAt != want.CreatedAt {
			t.Errorf("after restart: %+v (present %v), want %+v", got, ok, want)
		}
	}
	if len(list) != 2 {
		t.Errorf("after restart: %d workspaces, want 2", len(list))
	}
}

// Removing a workspace revokes it: its running sessions stop, and nothing
// new runs in its directory until it is added again.
func TestWorkspaceRemoveRevokes(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	sub := e.connect(ctx)
	w := e.workspace(ctx, c)
	sub.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)

	idle := startSession(t, ctx, c, w)
	send(t, ctx, c, idle, "hello")
	await(t, ctx, c, rpc.EventTurnCompleted, idle)
	busy := startSession(t, ctx, c, w)
	send(t, ctx, c, busy, script(map[string]any{"wait_interrupt": true}))
	await(t, ctx, c, rpc.EventState, busy)
	if len(children(t, w.Path)) != 2 {
		t.Fatalf("processes in the workspace: %v, want the two sessions' CLIs", children(t, w.Path))
	}

	c.MustCall(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)
	for _, id := range []string{idle, busy} {
		n := await(t, ctx, c, rpc.EventSessionStopped, id)
		if n.Field("reason") != "workspace_removed" {
			t.Errorf("%s: %s, want reason workspace_removed", id, n)
		}
	}
	awaitNoChildren(t, ctx, w.Path)
	if got := state(t, ctx, c, busy); got.IsRunning || got.Status != rpc.StatusStopped {
		t.Errorf("state after removal = %+v, want stopped", got)
	}

	// Nothing starts there again: not a resume of its sessions, not a new one.
	_, rerr := c.Call(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: idle, Prompt: "again"})
	wantError(t, "send to a session of a removed workspace", rerr, rpc.CodeWorkspaceNotFound)
	_, rerr = c.Call(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: w.ID, Mode: rpc.SendNew, Prompt: "new"})
	wantError(t, "send mode new in a removed workspace", rerr, rpc.CodeWorkspaceNotFound)
	_, rerr = c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID})
	wantError(t, "start in a removed workspace", rerr, rpc.CodeWorkspaceNotFound)
	_, rerr = c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, ResumeSessionID: idle})
	wantError(t, "resume in a removed workspace", rerr, rpc.CodeWorkspaceNotFound)
	if pids := children(t, w.Path); len(pids) != 0 {
		t.Errorf("processes started in the removed workspace: %v", pids)
	}
	var subs rpc.SubscriptionsResult
	sub.MustCall(ctx, rpc.MethodWorkspaceSubscriptions, nil, &subs)
	if len(subs.Workspaces) != 0 {
		t.Errorf("subscriptions after removal: %v", subs.Workspaces)
	}

	// Added again (the same id, for the same path), its sessions resume.
	var again rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: w.Path}, &again)
	if again.ID != w.ID {
		t.Fatalf("re-added workspace id %s, want %s", again.ID, w.ID)
	}
	send(t, ctx, c, idle, "back")
	await(t, ctx, c, rpc.EventTurnCompleted, idle)
}
