package contracttests

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/workspaces/turns"
)

// A turn's start reuses the last turn's end when nothing in the tree
// changed since (no git runs while the prompt waits), and takes a fresh
// snapshot when something did: a change the user made between turns is
// neither in the next turn's diff nor undone by its revert.
func TestTurnStartReusesTheLastEndUnlessTheTreeChanged(t *testing.T) {
	var snap *turns.Snapshotter
	withCounted := func(dc *daemon.Config, _ *scripted.Config) {
		// The daemon's own kind of Snapshotter, made here so that the test
		// can count how each snapshot was made.
		snap = turns.New(turns.Config{Home: filepath.Join(dc.Home, "turns"), Watcher: fswatch.New(fswatch.Config{})})
		dc.Sessions.Turns, dc.Sessions.TurnStore = snap, turns.NewStore(filepath.Join(dc.Home, "turns", "sessions"))
	}
	e := startEnv(t, withCounted)
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, e.url, e.token)
	w := e.workspace(ctx, c)
	gitRepo(t, w.Path)
	path := func(name string) string { return filepath.Join(w.Path, name) }
	id := startSession(t, ctx, c, w)
	turnFiles := func(turn int) []string {
		t.Helper()
		var ev rpc.TurnDiffEvent
		if err := await(t, ctx, c, rpc.EventTurnDiff, id).Decode(&ev); err != nil {
			t.Fatal(err)
		}
		if ev.Turn != turn {
			t.Fatalf("turn_diff of turn %d, want %d", ev.Turn, turn)
		}
		var names []string
		for _, f := range ev.Files {
			names = append(names, f.Path+" "+f.Status)
		}
		return names
	}

	writingTurn(t, ctx, c, id, path("a.txt"), "by the agent\n")
	if got := turnFiles(1); !reflect.DeepEqual(got, []string{"a.txt modified"}) {
		t.Fatalf("turn 1 = %v", got)
	}
	// Nothing changed since turn 1 ended: turn 2 starts on its end.
	before := snap.Counts()
	writingTurn(t, ctx, c, id, path("second.txt"), "turn 2\n")
	if got := turnFiles(2); !reflect.DeepEqual(got, []string{"second.txt added"}) {
		t.Fatalf("turn 2 = %v", got)
	}
	if got := snap.Counts(); got.Reused != before.Reused+1 || got.Taken != before.Taken+1 {
		// One reuse (the start), one snapshot taken (the end: a file changed).
		t.Fatalf("counts %+v after a turn that started on the last end, %+v before", got, before)
	}

	// The user works between turns: an edit and a new file.
	if err := os.WriteFile(path("a.txt"), []byte("by the user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("user.txt"), []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = snap.Counts()
	writingTurn(t, ctx, c, id, path("third.txt"), "turn 3\n")
	if got := turnFiles(3); !reflect.DeepEqual(got, []string{"third.txt added"}) {
		t.Fatalf("turn 3 = %v, want only the agent's file (the user's changes came before it)", got)
	}
	if got := snap.Counts(); got.Reused != before.Reused || got.Taken != before.Taken+2 {
		t.Fatalf("counts %+v after a turn that followed the user's changes, %+v before", got, before)
	}
	var res rpc.RevertResult
	c.MustCall(ctx, rpc.MethodSessionRevert, rpc.RevertParams{SessionID: id, Turn: 3}, &res)
	if !res.Success || !reflect.DeepEqual(res.Files, []string{"third.txt"}) {
		t.Fatalf("revert of turn 3 = %+v", res)
	}
	if _, err := os.Stat(path("third.txt")); !os.IsNotExist(err) {
		t.Fatalf("third.txt after the revert: %v", err)
	}
	if a, u := readFile(t, path("a.txt")), readFile(t, path("user.txt")); a != "by the user\n" || u != "the user's\n" {
		t.Fatalf("the user's files after reverting turn 3: a.txt %q, user.txt %q", a, u)
	}
}
