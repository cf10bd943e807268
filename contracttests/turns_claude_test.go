package contracttests

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
)

// A real Claude Code turn whose Write tool creates a file in a git
// repository (Write refuses to overwrite a file the model has not read): watchers get its turn_diff, session/turn_diff gives it again,
// and session/revert puts the file back, as a change of its own, leaving
// the user's refs and stash as they were.
func TestClaudeTurnDiffAndRevert(t *testing.T) {
	r := newClaudeRig(t)
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, r.url, r.token)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	notes := filepath.Join(dir, "notes.txt")
	git("init", "-q")
	if err := os.WriteFile(notes, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "notes.txt")
	git("commit", "-q", "-m", "notes")
	refs := git("for-each-ref") + git("stash", "list")

	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	id, _ := claudeStart(t, ctx, c, w)
	plan := filepath.Join(dir, "plan.md")
	r.respond(t, callTool("Write", map[string]string{"file_path": plan, "content": "# Plan\nstep one\n"}))
	claudeSend(t, ctx, c, id, "write plan.md")
	var p rpc.PermissionEvent
	if err := await(t, ctx, c, rpc.EventPermission, id).Decode(&p); err != nil {
		t.Fatal(err)
	}
	var ok rpc.StatusResult
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", RequestID: p.RequestID, AgentType: claude.ID}, &ok)

	var ev rpc.TurnDiffEvent
	if err := await(t, ctx, c, rpc.EventTurnDiff, id).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	want := []rpc.TurnFile{{Path: "plan.md", Status: "added", Additions: 2}}
	if ev.Turn != 1 || !reflect.DeepEqual(ev.Files, want) || !strings.Contains(ev.Diff, "+# Plan\n+step one\n") || ev.IsTruncated {
		t.Fatalf("turn_diff = %+v", ev)
	}
	if b, _ := os.ReadFile(plan); string(b) != "# Plan\nstep one\n" {
		t.Fatalf("plan.md after the turn = %q: the Write did not run", b)
	}

	var again rpc.TurnDiffResult
	c.MustCall(ctx, rpc.MethodSessionTurnDiff, rpc.TurnRefParams{SessionID: id, Turn: 1}, &again)
	if again.Diff != ev.Diff || !reflect.DeepEqual(again.Files, want) {
		t.Errorf("session/turn_diff = %+v, the event said %+v", again, ev.TurnDiff)
	}

	var res rpc.RevertResult
	c.MustCall(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1}, &res)
	if !res.Success || !reflect.DeepEqual(res.Files, []string{"plan.md"}) || len(res.Conflicts) != 0 || res.Turn != 2 {
		t.Fatalf("session/revert = %+v", res)
	}
	if _, err := os.Stat(plan); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("plan.md is still there after the revert: %v", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "before\n" {
		t.Fatalf("notes.txt, which the turn did not touch, = %q", b)
	}
	var undo rpc.TurnDiffEvent
	if err := c.Until(ctx, func(ns []Notification) bool {
		for _, n := range ns {
			if n.Type() == rpc.EventTurnDiff && n.Decode(&undo) == nil && undo.Reverts == 1 {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no turn_diff for the revert: %v", err)
	}
	if undo.Turn != 2 || !strings.Contains(undo.Diff, "deleted file mode") || undo.Files[0].Status != "deleted" {
		t.Errorf("the revert's turn_diff = %+v", undo)
	}
	var list rpc.TurnsResult
	c.MustCall(ctx, rpc.MethodSessionTurns, rpc.TurnsParams{SessionID: id}, &list)
	if len(list.Turns) != 2 || list.Turns[0].Turn != 1 || list.Turns[1].Reverts != 1 {
		t.Errorf("session/turns = %+v", list)
	}
	if after := git("for-each-ref") + git("stash", "list"); after != refs {
		t.Errorf("the user's refs or stash changed:\n%s\nthen\n%s", refs, after)
	}
}
