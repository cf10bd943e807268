package console_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// A person picks a model and an effort from the ones Claude Code offers
// when starting a session, and changes them on the running session from
// its header: each choice shows in the next request the model API gets.
func TestConsoleModelAndEffort(t *testing.T) {
	bctx := browser(t)
	fake := fakeanthropic.New(t)
	fake.Respond(fakeanthropic.Echo)
	ws := t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: claudetest.Env(t, fake.URL()), KillGrace: 2 * time.Second}),
	}})
	last := func() (model, effort string) {
		r := fake.LastMessageRequest(t)
		return r.Model, r.Effort()
	}
	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))

	// The start form offers the record's models, and the typed model's efforts.
	models := eval[[]string](t, a, `[...document.querySelectorAll('#start-models option')].map(o => o.value)`)
	if !slices.Contains(models, "sonnet") || !slices.Contains(models, "haiku") {
		t.Fatalf("the start form offers models %q", models)
	}
	setField(t, a, "#start-model", "haiku")
	if !eval[bool](t, a, `document.querySelector('#start-effort').disabled`) {
		t.Error("haiku, which takes no effort, has efforts to choose")
	}
	setField(t, a, "#start-model", "sonnet")
	efforts := eval[[]string](t, a, `[...document.querySelectorAll('#start-effort option')].map(o => o.value)`)
	if !slices.Equal(efforts, []string{"", "low", "medium", "high", "xhigh", "max"}) {
		t.Errorf("sonnet's efforts offered %q", efforts)
	}
	setField(t, a, "#start-effort", "low")
	do(t, a, "start", chromedp.Click(chromedp.CSS("#start")))
	until(t, a, "the session", `document.querySelector('#session').dataset.session && `+visible("#configure"))
	setPrompt(t, a, "first turn")
	until(t, a, "the answer", has(".msg.assistant:not(.streaming)", "first turn"))
	if m, e := last(); !strings.HasPrefix(m, "claude-sonnet-") || e != "low" {
		t.Errorf("the first turn ran %q at effort %q, want sonnet at low", m, e)
	}
	shot(t, a, "desktop-configure")

	// The header shows what the session runs, and changes it from the next turn.
	if got := eval[[]string](t, a, `[document.querySelector('#cfg-model').value, document.querySelector('#cfg-effort').value]`); !slices.Equal(got, []string{"sonnet", "low"}) {
		t.Errorf("the header shows %q", got)
	}
	setField(t, a, "#cfg-effort", "max")
	do(t, a, "apply", chromedp.Click(chromedp.CSS("#cfg-apply")))
	until(t, a, "the note", `document.querySelector('#session-note').textContent.includes('from the next turn')`)
	setPrompt(t, a, "second turn")
	until(t, a, "the second answer", has(".msg.assistant:not(.streaming)", "second turn"))
	if m, e := last(); !strings.HasPrefix(m, "claude-sonnet-") || e != "max" {
		t.Errorf("the second turn ran %q at effort %q, want sonnet at max", m, e)
	}

	setField(t, a, "#cfg-model", "haiku")
	if !eval[bool](t, a, `document.querySelector('#cfg-effort').disabled`) {
		t.Error("the header offers efforts for haiku")
	}
	do(t, a, "apply haiku", chromedp.Click(chromedp.CSS("#cfg-apply")))
	until(t, a, "the model in the header", `document.querySelector('#session-model').textContent === 'haiku'`)
	setPrompt(t, a, "third turn")
	until(t, a, "the third answer", has(".msg.assistant:not(.streaming)", "third turn"))
	if m, _ := last(); !strings.HasPrefix(m, "claude-haiku-") {
		t.Errorf("the third turn ran %q, want haiku", m)
	}
	shot(t, a, "desktop-configure-haiku")
	// Claude Code reports the switch in a "user" message of its own; it is
	// shown as its note, not as something the user typed.
	if eval[bool](t, a, `[...document.querySelectorAll('.msg.user')].some(m => m.textContent.includes('local-command'))`) {
		t.Error("the CLI's report of the model switch is drawn as the user's message, tags and all")
	}
	until(t, a, "the CLI's note of the switch", has(".msg.cli-note", "Set model to haiku"))

	// On a phone the header's choices wrap under the title: the page never
	// scrolls sideways, and they stay usable.
	do(t, a, "phone width", chromedp.EmulateViewport(390, 844))
	until(t, a, "the choices at phone width", visible("#configure"))
	if w := eval[int](t, a, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px wide the session's page is %d px wide: it scrolls sideways", w)
	}
	if right := eval[float64](t, a, `document.querySelector('#cfg-apply').getBoundingClientRect().right`); right > 390 {
		t.Errorf("Apply ends at %.0f px, past the 390 px screen", right)
	}
	shot(t, a, "phone-configure")
}
