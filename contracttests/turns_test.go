package contracttests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// writingTurn runs a turn of the scripted runtime during which path is
// written, as an agent's Write tool would: the test writes it while the
// turn waits on its permission prompt.
func writingTurn(t *testing.T, ctx context.Context, c *Client, id, path, content string) {
	t.Helper()
	send(t, ctx, c, id, script(map[string]any{"permission": map[string]any{"tool": "Write", "target": path, "kind": "write_file"}}))
	await(t, ctx, c, rpc.EventPermission, id)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", AgentType: scripted.ID}, nil)
	await(t, ctx, c, rpc.EventTurnCompleted, id)
}

// gitRepo makes dir a repository with a.txt committed.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"commit", "-q", "-m", "a"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRevertRefusesAndForces(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, c)
	gitRepo(t, w.Path)
	a := filepath.Join(w.Path, "a.txt")
	id := startSession(t, ctx, c, w)
	writingTurn(t, ctx, c, id, a, "by the agent\n")
	await(t, ctx, c, rpc.EventTurnDiff, id)

	// Bad requests get a clear error and leave the server as it was.
	for _, bad := range []struct {
		what string
		p    rpc.RevertParams
		code int64
	}{
		{"no session_id", rpc.RevertParams{Turn: 1}, rpc.CodeInvalidParams},
		{"turn 0", rpc.RevertParams{SessionID: id}, rpc.CodeInvalidParams},
		{"a turn never run", rpc.RevertParams{SessionID: id, Turn: 99}, rpc.CodeInvalidParams},
		{"a session id that is a path", rpc.RevertParams{SessionID: "../" + id, Turn: 1}, rpc.CodeSessionNotFound},
	} {
		_, rerr := c.Call(ctx, rpc.MethodSessionRevert, bad.p)
		wantError(t, bad.what, rerr, bad.code)
	}
	_, rerr := c.Call(ctx, rpc.MethodSessionTurnDiff, rpc.TurnRefParams{SessionID: id, Turn: 7})
	wantError(t, "turn_diff of a turn never run", rerr, rpc.CodeInvalidParams)

	// The user changed the file since: refused, listing it, and nothing
	// changes; a dry run says the same without an error.
	if err := os.WriteFile(a, []byte("then by the user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rerr = c.Call(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1})
	wantError(t, "revert over the user's change", rerr, rpc.CodeRevertConflict)
	if data, _ := rerr.Data.(map[string]any); !reflect.DeepEqual(data["files"], []any{"a.txt"}) {
		t.Errorf("conflict data = %v, want files [a.txt]", rerr.Data)
	}
	var dry rpc.RevertResult
	c.MustCall(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1, DryRun: true}, &dry)
	if !dry.Success || !dry.DryRun || !reflect.DeepEqual(dry.Conflicts, []string{"a.txt"}) || dry.Turn != 0 {
		t.Errorf("dry run = %+v", dry)
	}
	if got := readFile(t, a); got != "then by the user\n" {
		t.Fatalf("a.txt after a refused revert and a dry run = %q", got)
	}

	// Forced: restored, and recorded as turn 2, which reverts back.
	var res rpc.RevertResult
	c.MustCall(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1, Force: true}, &res)
	if got := readFile(t, a); !res.Success || res.Turn != 2 || got != "original\n" {
		t.Fatalf("forced revert = %+v, a.txt = %q", res, got)
	}
	c.MustCall(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 2}, &res)
	if got := readFile(t, a); res.Turn != 3 || got != "then by the user\n" {
		t.Fatalf("revert of the revert = %+v, a.txt = %q", res, got)
	}

	// Never while the session is in a turn.
	send(t, ctx, c, id, script(map[string]any{"permission": map[string]any{"tool": "Write", "target": a, "kind": "write_file"}}))
	await(t, ctx, c, rpc.EventPermission, id)
	_, rerr = c.Call(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1, Force: true})
	wantError(t, "revert during a turn", rerr, rpc.CodeSessionBusy)
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "no", AgentType: scripted.ID}, nil)
	await(t, ctx, c, rpc.EventTurnCompleted, id)

	var list rpc.TurnsResult
	c.MustCall(ctx, rpc.MethodSessionTurns, rpc.TurnsParams{SessionID: id}, &list)
	var nums []int
	for _, tr := range list.Turns {
		nums = append(nums, tr.Turn)
	}
	// Turn 4, which changed nothing, is not listed.
	if !reflect.DeepEqual(nums, []int{1, 2, 3}) || list.Turns[1].Reverts != 1 || list.Turns[2].Reverts != 2 {
		t.Errorf("session/turns = %+v", list)
	}
}

func TestTurnsInAFolderThatIsNotARepository(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, c)
	id := startSession(t, ctx, c, w)
	writingTurn(t, ctx, c, id, filepath.Join(w.Path, "notes.txt"), "hello\n")

	var list rpc.TurnsResult
	c.MustCall(ctx, rpc.MethodSessionTurns, rpc.TurnsParams{SessionID: id}, &list)
	if len(list.Turns) != 0 {
		t.Errorf("session/turns = %+v, want none outside a repository", list)
	}
	_, rerr := c.Call(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1})
	wantError(t, "revert outside a repository", rerr, rpc.CodeInvalidParams)
	for _, n := range c.SessionEvents(id) {
		if n.Type() == rpc.EventTurnDiff {
			t.Errorf("a turn_diff outside a repository: %s", n.Params)
		}
	}
}

// A turn's snapshots are kept under $CDEVD_HOME: after a restart its diff
// is there, and it can be reverted, with no process of its session running.
func TestTurnsAfterDaemonRestart(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	same := func(dc *daemon.Config, sc *scripted.Config) { dc.Home, sc.StateDir = home, state }
	ctx := testCtx(t)

	first := startEnv(t, same)
	c := first.connect(ctx)
	w := first.workspace(ctx, c)
	gitRepo(t, w.Path)
	a := filepath.Join(w.Path, "a.txt")
	id := startSession(t, ctx, c, w)
	writingTurn(t, ctx, c, id, a, "by the agent\n")
	var ev rpc.TurnDiffEvent
	if err := await(t, ctx, c, rpc.EventTurnDiff, id).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	changedTurns := func(c *Client, w rpc.Workspace) int {
		t.Helper()
		var h rpc.HistoryResult
		c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: scripted.ID}, &h)
		for _, s := range h.Sessions {
			if s.SessionID == id {
				return s.ChangedTurns
			}
		}
		t.Fatalf("history does not list the session %s: %+v", id, h)
		return 0
	}
	send(t, ctx, c, id, "a turn that changes nothing")
	await(t, ctx, c, rpc.EventTurnCompleted, id)
	if n := changedTurns(c, w); n != 1 {
		t.Errorf("history's changed_turns = %d after a turn that changed a file and one that did not, want 1", n)
	}
	c.Close()
	if err := first.d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	second := startEnv(t, same)
	c = second.connect(ctx)
	var d rpc.TurnDiffResult
	c.MustCall(ctx, rpc.MethodSessionTurnDiff, rpc.TurnRefParams{SessionID: id, Turn: 1}, &d)
	if d.Diff != ev.Diff || !reflect.DeepEqual(d.Files, ev.Files) {
		t.Fatalf("turn 1 after the restart = %+v, before it %+v", d.TurnDiff, ev.TurnDiff)
	}
	var res rpc.RevertResult
	c.MustCall(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1}, &res)
	if got := readFile(t, a); !res.Success || got != "original\n" {
		t.Fatalf("revert after the restart = %+v, a.txt = %q", res, got)
	}
	if n := changedTurns(c, w); n != 2 { // the workspace list is the home's: w is known
		t.Errorf("history's changed_turns after the restart and a revert = %d, want 2 (the turn, the revert)", n)
	}
	fi, err := os.Stat(filepath.Join(home, "turns", "sessions", id+".json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the session's turn records: %v, %v", fi, err)
	}
}

// A revert that fails on one file changes nothing: the error names the
// file, the files restored before it are put back, and the server goes on.
func TestRevertThatFailsHalfwayIsUndone(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, c)
	gitRepo(t, w.Path) // a.txt committed
	a, b := filepath.Join(w.Path, "a.txt"), filepath.Join(w.Path, "b.txt")
	id := startSession(t, ctx, c, w)
	send(t, ctx, c, id, script(map[string]any{"permission": map[string]any{"tool": "Write", "target": b, "kind": "write_file"}}))
	await(t, ctx, c, rpc.EventPermission, id)
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("by the agent\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", AgentType: scripted.ID}, nil)
	await(t, ctx, c, rpc.EventTurnDiff, id)
	// Since the turn, b.txt became a folder with the user's file in it: a
	// forced revert restores a.txt, then cannot put b.txt back.
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "mine.txt"), []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rerr := c.Call(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1, Force: true})
	wantError(t, "a revert that fails on b.txt", rerr, rpc.CodeInternalError)
	if data, _ := rerr.Data.(map[string]any); data["path"] != "b.txt" || data["not_put_back"] != nil ||
		!strings.Contains(rerr.Message, "nothing was changed") {
		t.Errorf("the error = %+v, want b.txt named and nothing left changed", rerr)
	}
	if got := readFile(t, a); got != "by the agent\n" {
		t.Errorf("a.txt after the failed revert = %q, want the turn's content back", got)
	}
	var list rpc.TurnsResult
	c.MustCall(ctx, rpc.MethodSessionTurns, rpc.TurnsParams{SessionID: id}, &list)
	if len(list.Turns) != 1 {
		t.Errorf("a failed revert was recorded as a turn: %+v", list.Turns)
	}
}
