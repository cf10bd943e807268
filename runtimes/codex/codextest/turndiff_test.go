package codextest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
	"github.com/cdevd/cdevd/workspaces/turns"
)

// TestCodexTurnDiffAgainstSnapshots compares Codex's own turn diff
// (turn/diff/updated) with cdevd's (workspaces/turns: snapshots of the
// working tree before and after the turn) for the two ways Codex edits:
// its apply_patch tool, and a shell command. docs/protocol.md says what
// this finds.
func TestCodexTurnDiffAgainstSnapshots(t *testing.T) {
	api := fakeopenai.New(t)
	const patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-original\n+patched\n*** Add File: b.txt\n+added\n*** End Patch\n"
	api.Respond(func(r fakeopenai.Request) fakeopenai.Reply {
		if _, ok := r.CallOutput(); ok {
			return fakeopenai.Text("done")
		}
		if r.LastUserText() == "patch" {
			return fakeopenai.Patch(patch)
		}
		return fakeopenai.Exec("echo shell > c.txt")
	})
	env := Env(t, api.BaseURL())
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"commit", "-q", "-m", "a"}} {
		if args[0] == "add" {
			if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("original\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("git", append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	repo, err := turns.New(turns.Config{Home: t.TempDir()}).Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(Timeout)
	a := startAppServer(t, env, ws)
	thread := a.startThread(deadline, map[string]any{"cwd": ws, "approvalPolicy": "never", "sandbox": "workspace-write"})

	// turn runs one turn and returns Codex's last turn/diff/updated ("" if
	// it sent none) and cdevd's diff of the same turn.
	turn := func(prompt string) (string, turns.Diff) {
		t.Helper()
		before, err := repo.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a.reply(deadline, a.request("turn/start", map[string]any{"threadId": thread,
			"input": []map[string]string{{"type": "text", "text": prompt}}}))
		_, seen := a.await(deadline, "turn/completed", isMethod("turn/completed"))
		var codexDiff string
		for _, m := range seen {
			var p struct {
				Diff string `json:"diff"`
			}
			if m.Method == "turn/diff/updated" && json.Unmarshal(m.Params, &p) == nil {
				codexDiff = p.Diff
			}
		}
		after, err := repo.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d, err := repo.Diff(ctx, before, after)
		if err != nil {
			t.Fatal(err)
		}
		return codexDiff, d
	}

	codexDiff, ours := turn("patch")
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "patched\n" {
		t.Fatalf("a.txt after apply_patch = %q: the patch did not apply", b)
	}
	if codexDiff == "" {
		t.Fatal("Codex sent no turn/diff/updated for its apply_patch")
	}
	// Both are git-style unified diffs of the same change: the same files,
	// the same hunks, the same blob ids. Only the "index" lines are written
	// differently: Codex gives the ids whole and no mode, git abbreviates
	// them and adds the mode.
	if got, want := sameIndexLines(codexDiff), sameIndexLines(ours.Unified); got != want {
		t.Errorf("Codex's turn diff and cdevd's disagree on apply_patch:\nCodex:\n%s\ncdevd:\n%s", codexDiff, ours.Unified)
	}
	t.Logf("apply_patch: Codex's diff:\n%s\ncdevd's:\n%s", codexDiff, ours.Unified)

	codexDiff, ours = turn("shell")
	if len(ours.Files) != 1 || ours.Files[0].Path != "c.txt" || ours.Files[0].Status != "added" {
		t.Fatalf("cdevd's diff of the shell turn: %+v", ours.Files)
	}
	// Codex tracks only what its apply_patch changed: for a turn whose
	// shell command wrote a file it sends no diff (0.169.0), or one without
	// that file.
	if strings.Contains(codexDiff, "c.txt") {
		t.Errorf("Codex's diff now shows the shell command's file; docs/protocol.md says it does not:\n%s", codexDiff)
	}
	t.Logf("shell: Codex's diff:\n%s\ncdevd's:\n%s", codexDiff, ours.Unified)
	a.stdin.Close()
	if _, ok := a.waitExit(deadline); !ok {
		t.Fatal("app-server still running after stdin EOF")
	}
}

// sameIndexLines writes a unified diff's "index <from>..<to>[ <mode>]"
// header lines as git abbreviates them, without the mode.
func sameIndexLines(diff string) string {
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		ids, ok := strings.CutPrefix(l, "index ")
		if !ok {
			continue
		}
		ids, _, _ = strings.Cut(ids, " ")
		from, to, _ := strings.Cut(ids, "..")
		lines[i] = "index " + from[:min(7, len(from))] + ".." + to[:min(7, len(to))]
	}
	return strings.Join(lines, "\n")
}
