package console_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/daemon"
)

// gitIn runs the real git in dir as the test's user would, and fails the
// test when it fails.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitRepo makes a repository in a fresh folder, with its own identity (the
// machine's may have none), a.txt committed and pushed to a local bare
// repository as origin/main. It returns the folder and the bare remote.
func gitRepo(t testing.TB) (dir, remote string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	remote = filepath.Join(t.TempDir(), "origin.git")
	gitIn(t, dir, "init", "-q", "--bare", remote)
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "config", "user.name", "Console Test")
	gitIn(t, dir, "config", "user.email", "console@example.com")
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	gitIn(t, dir, "add", "a.txt")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	gitIn(t, dir, "remote", "add", "origin", remote)
	gitIn(t, dir, "push", "-q", "-u", "origin", "main")
	return dir, remote
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// row is a JavaScript expression: the Changes view lists path in group.
func row(group, path string) string {
	return `document.querySelector('#git-groups .git-file[data-group="` + group + `"][data-path="` + path + `"]')`
}

// The Changes view against a real repository: what git status says, a
// readable diff, stage and unstage, a commit refused then made, the push
// that reaches the bare remote, a change made outside the page shown
// without a click (git_status_changed), a non-git workspace said plainly,
// and the phone's list → Changes → back.
func TestConsoleChanges(t *testing.T) {
	bctx := browser(t)
	dir, remote := gitRepo(t)
	plain := t.TempDir() // a workspace that is no repository
	writeFile(t, filepath.Join(dir, "a.txt"), "one\nTWO\nthree\n")
	writeFile(t, filepath.Join(dir, "new.txt"), "brand new\n")
	writeFile(t, filepath.Join(dir, "logo.bin"), "\x00\x01\x02\x03binary")
	d := startDaemon(t, daemon.Config{Workspaces: []string{dir, plain}})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	pickWorkspace(t, a, dir)
	do(t, a, "open Changes", chromedp.Click(chromedp.CSS("#changes-open"), chromedp.NodeVisible))
	until(t, a, "the status", row("unstaged", "a.txt")+" && "+row("untracked", "new.txt")+" && "+row("untracked", "logo.bin"))
	if b := eval[string](t, a, `document.querySelector('#git-branch').textContent + ' | ' + document.querySelector('#git-sync').textContent`); !strings.Contains(b, "main") || !strings.Contains(b, "origin/main") {
		t.Errorf("branch line = %q, want main tracking origin/main", b)
	}
	if rows := eval[int](t, a, `document.querySelectorAll('#git-groups .git-file').length`); rows != 3 {
		t.Errorf("%d files listed, want a.txt, new.txt and logo.bin", rows)
	}
	click(t, a, `.git-file[data-path="logo.bin"] .git-path`)
	until(t, a, "a binary file's diff", `document.querySelector('#git-diff').dataset.path === 'logo.bin' && `+has("#git-diff .binary-note", "Binary file"))

	click(t, a, `.git-file[data-path="a.txt"] .git-path`)
	until(t, a, "the diff", has("#git-diff pre.diff .del", "two")+" && "+has("#git-diff pre.diff .add", "TWO")+" && "+
		has("#git-diff pre.diff .ctx", "one"))
	if hdr := eval[bool](t, a, has("#git-diff pre.diff span", "diff --git")+" || "+has("#git-diff pre.diff span", "index ")); hdr {
		t.Error("git's header lines are shown in the diff")
	}
	shot(t, a, "desktop-changes")

	// A commit with nothing staged is refused by git: its banner says why.
	do(t, a, "commit nothing", chromedp.SendKeys(chromedp.CSS("#commit-message"), "too early"), chromedp.Click(chromedp.CSS("#commit")))
	until(t, a, "the refusal", has(`.banner-item[data-action="Commit"]`, "nothing to commit"))

	click(t, a, `.git-file[data-path="a.txt"] .git-stage`)
	until(t, a, "a.txt staged", row("staged", "a.txt")+" && !"+row("unstaged", "a.txt"))
	until(t, a, "the staged diff still shown", `document.querySelector('.git-file.chosen[data-group="staged"][data-path="a.txt"]') && `+
		has("#git-diff .badge", "staged")+" && "+has("#git-diff .add", "TWO"))
	click(t, a, `.git-file[data-group="staged"][data-path="a.txt"] .git-unstage`)
	until(t, a, "a.txt unstaged", row("unstaged", "a.txt")+" && !"+row("staged", "a.txt"))
	if st := gitIn(t, dir, "status", "--porcelain"); !strings.Contains(st, " M a.txt") {
		t.Errorf("git status after unstaging:\n%s", st)
	}

	// A file written outside the page appears by itself.
	writeFile(t, filepath.Join(dir, "later.txt"), "written by someone else\n")
	until(t, a, "later.txt, from git_status_changed", row("untracked", "later.txt"))

	for _, f := range []string{"a.txt", "new.txt"} {
		click(t, a, `.git-file[data-path="`+f+`"]:not([data-group="staged"]) .git-stage`)
		until(t, a, f+" staged", row("staged", f))
	}
	do(t, a, "commit", chromedp.SetValue(chromedp.CSS("#commit-message"), "edit a, add new"), chromedp.Click(chromedp.CSS("#commit")))
	until(t, a, "committed", has("#git-note", "Committed")+" && !"+row("staged", "a.txt")+" && "+row("untracked", "later.txt"))
	until(t, a, "the commit's banner gone with its success", `!document.querySelector('.banner-item[data-action="Commit"]')`)
	if got := gitIn(t, dir, "log", "-1", "--format=%s"); strings.TrimSpace(got) != "edit a, add new" {
		t.Errorf("last commit = %q", got)
	}
	click(t, a, `.git-group[data-group="untracked"] .git-stage-all`)
	until(t, a, "later.txt staged", row("staged", "later.txt")+" && "+row("staged", "logo.bin"))
	do(t, a, "commit it", chromedp.SetValue(chromedp.CSS("#commit-message"), "add later"), chromedp.Click(chromedp.CSS("#commit")))
	until(t, a, "clean", `document.querySelector('#git-groups .git-clean')`)
	if st := gitIn(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the page says clean, git status says:\n%s", st)
	}
	until(t, a, "two commits ahead", has("#git-sync", "↑2"))

	do(t, a, "push", chromedp.Click(chromedp.CSS("#git-push")))
	until(t, a, "pushed", has("#git-note", "Pushed 2 commits")+" && "+has("#git-sync", "↑0"))
	if got := gitIn(t, remote, "log", "-2", "--format=%s", "main"); got != "add later\nedit a, add new\n" {
		t.Errorf("the bare remote's main has %q", got)
	}

	// A push git refuses (the remote gone) is said in the push's banner.
	if err := os.RemoveAll(remote); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "one\n")
	gitIn(t, dir, "commit", "-q", "-am", "shorter")
	do(t, a, "push to nowhere", chromedp.Click(chromedp.CSS("#git-push")))
	until(t, a, "the push's banner", `document.querySelector('.banner-item[data-action="Push"]')`)

	// Phone: the list, Changes in its place, back.
	writeFile(t, filepath.Join(dir, "a.txt"), "one\nand two\n")
	do(t, a, "phone width", chromedp.EmulateViewport(390, 844))
	until(t, a, "Changes alone", visible("#review")+" && !"+visible("#side")+" && "+row("unstaged", "a.txt"))
	click(t, a, `.git-file[data-path="a.txt"] .git-path`)
	until(t, a, "the diff in view", has("#git-diff .add", "and two")+` && document.querySelector('#git-diff').getBoundingClientRect().top < 844`)
	if w := eval[int](t, a, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px wide the page is %d px wide: it scrolls sideways", w)
	}
	shot(t, a, "phone-changes")
	do(t, a, "back", chromedp.Click(chromedp.CSS("#review-back"), chromedp.NodeVisible))
	until(t, a, "the list", visible("#side")+" && !"+visible("#review"))

	// A watch console reads the changes and offers no control that acts.
	ticket, err := d.Auth().Pair("wall screen", auth.ScopeWatch)
	if err != nil {
		t.Fatal(err)
	}
	w := tab(t, bctx)
	do(t, w, "open a watch console", chromedp.Navigate("http://"+d.Addr()+"/#pair="+ticket.PairingToken))
	pickWorkspace(t, w, dir)
	do(t, w, "open Changes", chromedp.Click(chromedp.CSS("#changes-open"), chromedp.NodeVisible))
	until(t, w, "the status", row("unstaged", "a.txt"))
	for _, sel := range []string{".git-stage", ".git-stage-all", "#commit-form", "#git-push"} {
		if eval[bool](t, w, visible(sel)) {
			t.Errorf("a watch console shows %s", sel)
		}
	}

	// A folder that is no repository says so, with no git controls.
	pickWorkspace(t, a, plain)
	do(t, a, "open its Changes", chromedp.Click(chromedp.CSS("#changes-open"), chromedp.NodeVisible))
	until(t, a, "not a repository", has("#git-groups .git-none", "not a git repository")+" && !"+visible("#commit-form"))
	if eval[bool](t, a, `!!document.querySelector('.banner-item[data-action="Git status"]')`) {
		t.Error("a folder outside git shows an error banner")
	}

	// On a desktop the pane follows the workspace picked in the list.
	do(t, a, "desktop width", chromedp.EmulateViewport(1200, 900))
	pickWorkspace(t, a, dir)
	until(t, a, "the repository's changes again", row("unstaged", "a.txt")+` && document.querySelector('#review').dataset.workspace === document.querySelector('.ws.selected').dataset.id`)
}

// click clicks the element sel finds once there is one. It clicks from
// the page's script: the Changes view redraws its rows when git's status
// moves, which can detach a node between chromedp finding it and its
// mouse event.
func click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	js, err := json.Marshal(sel)
	if err != nil {
		t.Fatal(err)
	}
	until(t, ctx, sel, `(() => { const e = document.querySelector(`+string(js)+`); if (!e) return false; e.click(); return true })()`)
}

// pickWorkspace selects the workspace at path in the list.
func pickWorkspace(t testing.TB, ctx context.Context, path string) {
	t.Helper()
	sel := `.ws-open[title="` + path + `"]`
	until(t, ctx, "the workspace "+path, `document.querySelector('`+sel+`')`)
	do(t, ctx, "pick "+path, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible), chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	until(t, ctx, "the workspace picked", `document.querySelector('.ws.selected `+sel+`')`)
}
