package console_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// A real Claude Code turn writes plan.md in a repository: the session
// shows the turn's card (its file, +2 −0, the diff on demand); Revert
// lists what it restores and, when the file was edited by hand after the
// dry run, is refused with the file named until "Revert anyway"; the
// file is then gone and the revert shows as a turn of its own. After a
// reload both turns come back from session/turns, their diff from
// session/turn_diff; reverting the revert brings the hand edit back.
func TestConsoleTurnDiffAndRevert(t *testing.T) {
	bctx := browser(t)
	dir, _ := gitRepo(t)
	plan := filepath.Join(dir, "plan.md")
	fake := fakeanthropic.New(t)
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		if res, ok := req.ToolResult(); ok {
			return fakeanthropic.Text("wrote it: " + res.ResultText())
		}
		if !req.HasTool("Write") || req.LastUserText() != "write the plan" {
			return fakeanthropic.Echo(req) // the CLI's side requests
		}
		return fakeanthropic.UseTool("Write", map[string]string{"file_path": plan, "content": "# Plan\nstep one\n"})
	})
	d := startDaemon(t, daemon.Config{Workspaces: []string{dir}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: claudetest.Env(t, fake.URL()), KillGrace: 2 * time.Second}),
	}})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	pickWorkspace(t, a, dir)
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `document.querySelector('#session').dataset.session && document.querySelector('#state').textContent === 'idle'`)
	id := eval[string](t, a, "document.querySelector('#session').dataset.session")
	if eval[bool](t, a, visible("#turns")) {
		t.Error("a session with no turn that changed files shows the turns list")
	}
	setPrompt(t, a, "write the plan")
	click(t, a, `.prompt.permission button[data-key="yes"]`)

	card := `.turn[data-turn="1"]`
	until(t, a, "turn 1's card", `document.querySelector('`+card+` .turn-file[data-path="plan.md"]') && `+
		has(card+` .turn-file[data-path="plan.md"] .plus-minus`, "+2 −0")+` && document.querySelector('#turns').open && `+visible(card))
	click(t, a, card+" .turn-diff-toggle")
	until(t, a, "its diff", has(card+" .turn-diff .patch-file", "plan.md")+" && "+has(card+" .turn-diff .add", "step one"))
	until(t, a, "the turn over", `document.querySelector('#state').textContent === 'idle'`)
	shot(t, a, "desktop-turn-diff")

	// The dry run lists the file; an edit by hand before the confirmation
	// makes cdevd refuse (-32014), naming it.
	click(t, a, card+" .turn-revert")
	until(t, a, "the confirmation", has(card+" .turn-confirm .revert-files li", "plan.md")+
		` && document.querySelector('`+card+` .turn-confirm-go') && !document.querySelector('`+card+` .revert-conflicts')`)
	writeFile(t, plan, "# Plan\nedited by hand\n")
	click(t, a, card+" .turn-confirm-go")
	until(t, a, "the conflict", has(card+" .revert-conflicts li", "plan.md")+` && document.querySelector('`+card+` .turn-force')`)
	if b, err := os.ReadFile(plan); err != nil || string(b) != "# Plan\nedited by hand\n" {
		t.Fatalf("plan.md after a refused revert = %q, %v", b, err)
	}
	shot(t, a, "desktop-turn-conflict")
	click(t, a, card+" .turn-force")
	until(t, a, "reverted", `document.querySelector('`+card+` .turn-confirm.done') && `+has(`.turn[data-turn="2"] .turn-title`, "revert of turn 1"))
	if _, err := os.Stat(plan); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("plan.md after the revert: %v, want it gone", err)
	}
	if eval[bool](t, a, `!!document.querySelector('.banner-item[data-action="Revert"]')`) {
		t.Error("a revert that succeeded left a banner")
	}

	// Stored: the turns and their diffs after a reload.
	do(t, a, "reload", chromedp.Reload())
	pickWorkspace(t, a, dir)
	click(t, a, `.hist[data-session="`+id+`"]`)
	until(t, a, "both turns", `document.querySelector('.turn[data-turn="1"]') && `+has(`.turn[data-turn="2"] .turn-file[data-path="plan.md"] .git-status`, "D"))
	if eval[bool](t, a, `document.querySelector('#turns').open`) {
		t.Error("stored turns opened by themselves: only a live turn opens the list")
	}
	do(t, a, "open the list", chromedp.Click(chromedp.CSS("#turns > summary"), chromedp.NodeVisible))
	until(t, a, "the list open", `document.querySelector('#turns').open && `+has("#turns > summary", "(2)"))
	do(t, a, "open turn 1's diff", chromedp.Click(chromedp.CSS(`.turn[data-turn="1"] .turn-diff-toggle`), chromedp.NodeVisible))
	until(t, a, "turn 1's stored diff", has(`.turn[data-turn="1"] .turn-diff .add`, "step one"))

	// A revert is reverted as any turn: no conflict, so no force; the
	// file comes back as it was before the revert (the hand edit).
	click(t, a, `.turn[data-turn="2"] .turn-revert`)
	until(t, a, "the revert's confirmation", has(`.turn[data-turn="2"] .revert-files li`, "plan.md")+
		` && !document.querySelector('.turn[data-turn="2"] .revert-conflicts')`)
	click(t, a, `.turn[data-turn="2"] .turn-confirm-go`)
	until(t, a, "turn 3", has(`.turn[data-turn="3"] .turn-title`, "revert of turn 2")+` && document.querySelector('.turn[data-turn="2"] .turn-confirm.done')`)
	if b, err := os.ReadFile(plan); err != nil || string(b) != "# Plan\nedited by hand\n" {
		t.Errorf("plan.md after reverting the revert = %q, %v; want the hand edit back", b, err)
	}

	do(t, a, "phone width", chromedp.EmulateViewport(390, 844))
	do(t, a, "show the turns", chromedp.ScrollIntoView(chromedp.CSS(`.turn[data-turn="3"]`)))
	until(t, a, "the session alone", visible("#session")+" && !"+visible("#side")+" && "+visible(`.turn[data-turn="3"] .turn-revert`))
	if w := eval[int](t, a, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px wide the page is %d px wide: it scrolls sideways", w)
	}
	shot(t, a, "phone-turns")
}
