package contracttests

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// 13. A turn whose shell command edits a committed file and adds one, in a
// git repository: watchers get the turn's turn_diff (with the two files,
// their line counts and the unified diff), session/turn_diff gives it
// again, and session/revert puts both files back as they were, announcing
// its own turn_diff. The edit goes through each runtime's own shell tool,
// so the diff is the one a user of that runtime would see.
func scenarioTurnDiff(t *testing.T, r *scenarioRig) {
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	gitRepo(t, w.Path) // a.txt: "original\n", committed
	a, b := filepath.Join(w.Path, "a.txt"), filepath.Join(w.Path, "b.txt")
	id := r.start(t, ctx, c, w, rpc.PermissionDefault)

	const cmd = "echo edited > a.txt && echo new > b.txt"
	after := r.send(t, ctx, c, id, "run: "+cmd)
	p := permission(t, await(t, ctx, c, rpc.EventPermission, id))
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", RequestID: p.RequestID, AgentType: r.rt.id}, nil)
	if end, evs := r.end(t, ctx, c, id, after); end.Type() != rpc.EventTurnCompleted {
		t.Fatalf("the editing turn ended with %s (events %v)", end, types(evs))
	}
	if got := readFile(t, a) + readFile(t, b); got != "edited\nnew\n" {
		t.Fatalf("after the turn a.txt and b.txt hold %q: the command did not run", got)
	}

	var ev rpc.TurnDiffEvent
	if err := await(t, ctx, c, rpc.EventTurnDiff, id).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	want := []rpc.TurnFile{{Path: "a.txt", Status: "modified", Additions: 1, Deletions: 1}, {Path: "b.txt", Status: "added", Additions: 1}}
	if ev.Turn != 1 || ev.Reverts != 0 || !reflect.DeepEqual(ev.Files, want) || ev.IsTruncated ||
		!strings.Contains(ev.Diff, "-original\n+edited\n") || !strings.Contains(ev.Diff, "new file mode 100644") {
		t.Fatalf("turn_diff = %+v", ev)
	}
	var again rpc.TurnDiffResult
	c.MustCall(ctx, rpc.MethodSessionTurnDiff, rpc.TurnRefParams{SessionID: id, Turn: 1}, &again)
	if again.Diff != ev.Diff || !reflect.DeepEqual(again.Files, want) {
		t.Errorf("session/turn_diff = %+v, the event said %+v", again.TurnDiff, ev.TurnDiff)
	}

	var res rpc.RevertResult
	c.MustCall(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 1}, &res)
	if !res.Success || !reflect.DeepEqual(res.Files, []string{"a.txt", "b.txt"}) || len(res.Conflicts) != 0 || res.Turn != 2 {
		t.Fatalf("session/revert = %+v", res)
	}
	if got := readFile(t, a); got != "original\n" {
		t.Errorf("a.txt after the revert = %q, want the committed %q", got, "original\n")
	}
	if _, err := os.Lstat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt, which the turn added, is still there after the revert (%v)", err)
	}
	if st := gitCmd(t, w.Path, "status", "--porcelain"); st != "" {
		t.Errorf("git status after the revert:\n%s\nwant a clean tree", st)
	}
	var undo rpc.TurnDiffEvent
	if err := c.Until(ctx, func(ns []Notification) bool {
		for _, n := range ns {
			if Event(rpc.EventTurnDiff, id)(n) && n.Decode(&undo) == nil && undo.Reverts == 1 {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no turn_diff for the revert: %v", err)
	}
	if undo.Turn != 2 || len(undo.Files) != 2 || undo.Files[1].Status != "deleted" {
		t.Errorf("the revert's turn_diff = %+v", undo.TurnDiff)
	}
}
