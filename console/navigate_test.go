package console_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// visible is a JavaScript expression: the element is laid out (shown).
func visible(sel string) string {
	return `(document.querySelector('` + sel + `')?.offsetParent != null)`
}

// One history across runtimes; a start with model and permission mode
// that reach the CLI; a failed start shown as failed, its banner once and
// gone when a start succeeds or it is dismissed; the phone's list →
// session → back.
func TestConsoleHistoryStartBannersPhone(t *testing.T) {
	bctx := browser(t)
	fake := fakeanthropic.New(t)
	fake.Respond(fakeanthropic.Echo)
	ws := t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: claudetest.Env(t, fake.URL()), KillGrace: 2 * time.Second}),
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()}),
	}})
	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	if title := eval[string](t, a, `document.querySelector('header h1').textContent.trim()`); title != "cdevd" {
		t.Errorf("header reads %q before connecting", title)
	}
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	until(t, a, "the version", `document.querySelector('#server').textContent !== ''`)
	if h := eval[string](t, a, `document.querySelector('header h1').textContent.replace(/\s+/g, ' ').trim()`); strings.Count(h, "cdevd") != 1 {
		t.Errorf("header reads %q: the name once, then the version", h)
	}
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))

	// The permission modes offered are the ones the runtime's record lists.
	setField(t, a, "#start-runtime", scripted.ID)
	modes := eval[[]string](t, a, `[...document.querySelectorAll('#start-mode option')].map(o => o.value)`)
	if want := []string{"", "bypassPermissions", "interactive"}; !slices.Equal(modes, want) {
		t.Errorf("scripted's permission modes offered %q, want %q", modes, want)
	}
	setField(t, a, "#start-model", "model-from-the-form")
	setField(t, a, "#start-mode", "bypassPermissions")
	do(t, a, "start with them", chromedp.Click(chromedp.CSS("#start")))
	until(t, a, "the scripted session", `document.querySelector('#session').dataset.session && document.querySelector('#session-runtime').textContent === 'Scripted (test)'`)
	sid := eval[string](t, a, "document.querySelector('#session').dataset.session")
	// With bypassPermissions the CLI does not ask; with the default mode
	// this turn would wait on a prompt and never say "permission: allow".
	setPrompt(t, a, `{"steps":[{"permission":{"tool":"Bash","target":"rm -rf build","kind":"bash_command"}},{"message":"all done"}]}`)
	until(t, a, "the answer", has(".msg.assistant", "permission: allow")+" && "+has(".msg.assistant", "all done"))
	if eval[bool](t, a, `!!document.querySelector('.prompt')`) {
		t.Error("a permission prompt showed under bypassPermissions")
	}
	until(t, a, "the model in the header", `document.querySelector('#session-model').textContent === 'model-from-the-form' && `+visible("#session-model"))

	// A failed start shows as failed, its banner says it once.
	do(t, a, "start in a folder that is not there",
		chromedp.SendKeys(chromedp.CSS("#start-cwd"), "no-such-folder"), chromedp.Click(chromedp.CSS("#start")))
	until(t, a, "the failed start", `document.querySelector('#session.failed') && !document.querySelector('#session').dataset.session`)
	until(t, a, "its banner", `document.querySelector('.banner-item[data-action="Start session"]')`)
	if n := eval[int](t, a, `document.querySelector('#transcript').childElementCount`); n != 0 {
		t.Errorf("the previous session's %d messages stayed on screen after a failed start", n)
	}
	if got := eval[string](t, a, `document.querySelector('#state').textContent`); got != "error" {
		t.Errorf("state after a failed start = %q", got)
	}
	shot(t, a, "desktop-4-failed-start")
	do(t, a, "fail again", chromedp.Click(chromedp.CSS("#start")))
	until(t, a, "the same banner, once", `document.querySelectorAll('#banner .banner-item').length === 1 && `+
		`(document.querySelector('#banner').textContent.match(/does not exist/g) || []).length === 1`)

	// Other actions succeeding leave it; the start succeeding clears it.
	do(t, a, "refresh history", chromedp.Click(chromedp.CSS("#history-refresh")))
	until(t, a, "the history refreshed", `document.querySelector('.hist[data-session="`+sid+`"]')`)
	if !eval[bool](t, a, `!!document.querySelector('.banner-item[data-action="Start session"]')`) {
		t.Error("another action's success cleared the start's banner")
	}
	setField(t, a, "#start-cwd", "")
	setField(t, a, "#start-model", "")
	setField(t, a, "#start-runtime", claude.ID)
	do(t, a, "start claude in the root", chromedp.Click(chromedp.CSS("#start")))
	until(t, a, "the claude session", `document.querySelector('#session').dataset.session && !document.querySelector('#session.failed')`)
	until(t, a, "the banner gone", `document.querySelector('#banner').hidden`)
	cid := eval[string](t, a, "document.querySelector('#session').dataset.session")
	setPrompt(t, a, "hello from the history test")
	until(t, a, "claude's answer", has(".msg.assistant:not(.streaming)", "hello from the history test"))

	// A dismissed banner goes.
	do(t, a, "fail a start", chromedp.SendKeys(chromedp.CSS("#start-cwd"), "../outside"), chromedp.Click(chromedp.CSS("#start")))
	until(t, a, "the banner", `document.querySelector('.banner-item[data-action="Start session"]')`)
	do(t, a, "dismiss it", chromedp.Click(chromedp.CSS(`.banner-item[data-action="Start session"] .dismiss`)))
	until(t, a, "the banner dismissed", `document.querySelector('#banner').hidden && !document.querySelector('.banner-item')`)
	setField(t, a, "#start-cwd", "")

	// One history: both runtimes' sessions, newest first, with badges.
	until(t, a, "both sessions in one history", `document.querySelector('.hist[data-session="`+cid+`"]') && document.querySelector('.hist[data-session="`+sid+`"]')`)
	order := eval[[]string](t, a, `[...document.querySelectorAll('.hist')].map(li => li.dataset.runtime + ':' + li.querySelector('.badge').textContent)`)
	if !slices.Equal(order, []string{"claude:Claude Code", "scripted:Scripted (test)"}) {
		t.Errorf("history = %q, want claude's newer session first, then scripted's", order)
	}
	until(t, a, "claude session's summary", `document.querySelector('.hist[data-session="`+cid+`"] .summary').textContent === 'hello from the history test'`)
	shot(t, a, "desktop-1-history")

	// Opening from history: header with summary, runtime and state.
	do(t, a, "open the scripted session", chromedp.Click(chromedp.CSS(`.hist[data-session="`+sid+`"]`)))
	until(t, a, "its transcript", has(".msg.assistant", "all done")+` && document.querySelector('#session').dataset.session === '`+sid+`'`)
	if got := eval[string](t, a, `document.querySelector('#session-title').textContent`); got == "" || got == sid {
		t.Errorf("session header title = %q, want its summary", got)
	}

	// Phone: the list, then the session, then back.
	do(t, a, "phone width", chromedp.EmulateViewport(390, 844))
	until(t, a, "the session alone", visible("#session")+" && !"+visible("#side"))
	do(t, a, "back", chromedp.Click(chromedp.CSS("#back"), chromedp.NodeVisible))
	until(t, a, "the list", visible("#side")+" && !"+visible("#session"))
	shot(t, a, "phone-1-list")
	do(t, a, "open claude's session", chromedp.Click(chromedp.CSS(`.hist[data-session="`+cid+`"]`), chromedp.NodeVisible))
	until(t, a, "the session in view", visible("#session")+" && !"+visible("#side")+
		` && document.querySelector('#session').getBoundingClientRect().top < 200 && `+has(".msg.assistant", "hello from the history test"))
	shot(t, a, "phone-3-session")
	do(t, a, "back again", chromedp.Click(chromedp.CSS("#back"), chromedp.NodeVisible))
	until(t, a, "the list again", visible("#side")+" && !"+visible("#session"))
}

// setPrompt sends text as the composer's prompt (set whole: typing a long
// script key by key is slow).
func setPrompt(t testing.TB, ctx context.Context, text string) {
	t.Helper()
	js, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `(document.querySelector('#prompt').value = `+string(js)+`, true)`)
	do(t, ctx, "send", chromedp.Click(chromedp.CSS("#send")))
}

// setField sets a form field's value as a person choosing it would (the
// change event included).
func setField(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	v, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, ctx, `(() => { const e = document.querySelector('`+sel+`'); e.value = `+string(v)+
		`; e.dispatchEvent(new Event('change')); return e.value === `+string(v)+` })()`) {
		t.Fatalf("%s cannot be set to %s", sel, v)
	}
}
