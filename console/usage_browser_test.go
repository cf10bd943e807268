package console_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// The session header shows how full the context is and the plan's fullest
// window, live from the real CLI's reports (a claude.ai login, the fake
// API's limit headers), and again when another page opens the session.
func TestConsoleUsageMeters(t *testing.T) {
	bctx := browser(t)
	fake := fakeanthropic.New(t)
	env := claudetest.Subscriber(claudetest.Env(t, fake.URL()))
	limit := fakeanthropic.PlanLimit{Status: "allowed_warning", Claim: "five_hour", Abbrev: "5h", Utilization: 0.93,
		Reset: time.Now().Add(2 * time.Hour), Surpassed: 0.9}
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		r := fakeanthropic.Text("answered")
		r.Headers = limit.Headers()
		return r
	})
	d := startDaemon(t, daemon.Config{Workspaces: []string{t.TempDir()}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: env, KillGrace: 2 * time.Second}),
	}})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the workspace", `document.querySelector('.ws')`)
	wid := eval[string](t, a, `document.querySelector('.ws').dataset.id`)
	pick := chromedp.Click(chromedp.CSS(`.ws[data-id="`+wid+`"] .ws-open`), chromedp.NodeVisible)
	do(t, a, "pick the workspace", pick, chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `document.querySelector('#session').dataset.session`)
	id := eval[string](t, a, "document.querySelector('#session').dataset.session")
	if eval[bool](t, a, `!document.querySelector('#session-context').hidden || !document.querySelector('#session-limit').hidden`) {
		t.Error("meters shown before the CLI said anything")
	}

	do(t, a, "send a prompt", chromedp.SendKeys(chromedp.CSS("#prompt"), "hello"), chromedp.Click(chromedp.CSS("#send")))
	until(t, a, "the answer", has(".msg.assistant", "answered"))
	const limitShown = `!document.querySelector('#session-limit').hidden && ` +
		`document.querySelector('#session-limit').textContent === 'Limit 5h  93 %' && ` +
		`document.querySelector('#session-limit').classList.contains('warn') && ` +
		`document.querySelector('#session-limit meter').value === 93`
	const contextShown = `!document.querySelector('#session-context').hidden && ` +
		`/^Context  \d+ %$/.test(document.querySelector('#session-context').textContent) && ` +
		`document.querySelector('#session-context meter').value > 0 && ` +
		`/ of 200,000 tokens/.test(document.querySelector('#session-context').title)`
	until(t, a, "the limit meter", limitShown)
	until(t, a, "the context meter", contextShown)
	if tip := eval[string](t, a, `document.querySelector('#session-limit').title`); tip == "" || tip[:19] != "5h: 93 % used, rese" {
		t.Errorf("limit tooltip %q", tip)
	}
	shot(t, a, "usage-meters")

	// Another page opening the session from history reads both back
	// (session/state's context, usage/limits).
	b := tab(t, bctx)
	do(t, b, "open a second page", chromedp.Navigate(d.ConsoleURL()))
	until(t, b, "the workspace", `document.querySelector('.ws[data-id="`+wid+`"]')`)
	do(t, b, "pick the workspace", pick)
	until(t, b, "the session in history", `document.querySelector('.hist[data-session="`+id+`"]')`)
	do(t, b, "open it", chromedp.Click(chromedp.CSS(`.hist[data-session="`+id+`"]`)))
	until(t, b, "the limit meter", limitShown)
	until(t, b, "the context meter", contextShown)
}
