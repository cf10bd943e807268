package console_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// The queue under the composer, with the real Claude CLI: prompts sent
// while a turn runs (the fake API holds it open) show as queued; one is
// edited, one moved up, one removed; when the turn ends they run in the
// order the page shows, and the queue goes away.
func TestConsoleQueue(t *testing.T) {
	bctx := browser(t)
	fake := fakeanthropic.New(t)
	var mu sync.Mutex
	var received []string
	arrived, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(done) }) // before the fake closes: a held request ends
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		if !req.HasTool("Bash") { // the CLI's side requests
			return fakeanthropic.Echo(req)
		}
		p := req.LastUserText()
		mu.Lock()
		if !slices.Contains(received, p) {
			received = append(received, p)
			if p == "hold on" {
				close(arrived)
			}
		}
		mu.Unlock()
		if p == "hold on" {
			select {
			case <-release:
			case <-done:
			}
		}
		return fakeanthropic.Text("answer to " + p)
	})
	ws := t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: claudetest.Env(t, fake.URL()), KillGrace: 2 * time.Second}),
	}})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the workspace", `document.querySelector('.ws')`)
	wid := eval[string](t, a, `document.querySelector('.ws').dataset.id`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws[data-id="`+wid+`"] .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `!document.querySelector('#session').hidden && document.querySelector('#session').dataset.session`)

	sendPrompt := func(p string) {
		t.Helper()
		do(t, a, "send "+p, chromedp.SendKeys(chromedp.CSS("#prompt"), p), chromedp.Click(chromedp.CSS("#send")))
		until(t, a, p+" sent", `document.querySelector('#prompt').value === ''`)
	}
	sendPrompt("hold on")
	select {
	case <-arrived:
	case <-time.After(claudetest.Timeout):
		t.Fatal("the model never received the first prompt")
	}
	for _, p := range []string{"second", "third", "fourth"} {
		sendPrompt(p)
	}
	const queued = `[...document.querySelectorAll('#queue .queued .queue-text')].map(e => e.textContent).join('|')`
	until(t, a, "three queued prompts", queued+` === 'second|third|fourth' && !document.querySelector('#queue').hidden`)
	until(t, a, "the send says it queued", has("#session-note", "Queued"))
	shot(t, a, "1-queued")

	do(t, a, "edit the first", chromedp.Click(chromedp.CSS(`#queue .queued:nth-child(1) .queue-edit`)))
	do(t, a, "type the new text", chromedp.SetValue(chromedp.CSS("#queue .queue-input"), "second, edited"),
		chromedp.SendKeys(chromedp.CSS("#queue .queue-input"), kb.Enter))
	until(t, a, "the edit", queued+` === 'second, edited|third|fourth'`)
	do(t, a, "move the second up", chromedp.Click(chromedp.CSS(`#queue .queued:nth-child(2) .queue-up`)))
	until(t, a, "the move", queued+` === 'third|second, edited|fourth'`)
	do(t, a, "remove the last", chromedp.Click(chromedp.CSS(`#queue .queued:nth-child(3) .queue-remove`)))
	until(t, a, "the removal", queued+` === 'third|second, edited'`)
	shot(t, a, "2-edited")

	close(release)
	until(t, a, "the last answer", has(".msg.assistant", "answer to second, edited"))
	until(t, a, "the queue gone", `document.querySelector('#queue').hidden`)
	mu.Lock()
	got := slices.Clone(received)
	mu.Unlock()
	if !slices.Equal(got, []string{"hold on", "third", "second, edited"}) {
		t.Errorf("the model received %q, want the turn then the queue as the page left it", got)
	}
}
