package console_test

import (
	"bytes"
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
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

// The composer's Attach button uploads an image, shows it, and the next
// prompt carries it: the real Claude CLI's model API receives the image
// itself, the bytes of the file the user picked.
func TestConsoleAttachesAnImage(t *testing.T) {
	bctx := browser(t)
	fake := fakeanthropic.New(t)
	env := claudetest.Env(t, fake.URL())
	ws := t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: env, KillGrace: 2 * time.Second}),
	}})
	img := testimage.PNG(8, 80, 60)
	picked := filepath.Join(t.TempDir(), "screenshot.png")
	if err := os.WriteFile(picked, img, 0o600); err != nil {
		t.Fatal(err)
	}
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		for _, im := range req.Images() {
			if bytes.Equal(im.Data, img) {
				return fakeanthropic.Text("I see your screenshot")
			}
		}
		return fakeanthropic.Echo(req)
	})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the registry", `document.querySelector('.runtime[data-id="claude"] .status.active')`)
	until(t, a, "the workspace", `document.querySelector('.ws')`)
	wid := eval[string](t, a, `document.querySelector('.ws').dataset.id`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws[data-id="`+wid+`"] .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `!document.querySelector('#session').hidden && document.querySelector('#session').dataset.session`)

	do(t, a, "attach the image", chromedp.SetUploadFiles(chromedp.CSS("#attach-file"), []string{picked}))
	until(t, a, "the attachment shown", has("#attachments .attachment", "screenshot.png"))
	do(t, a, "send a prompt with it", chromedp.SendKeys(chromedp.CSS("#prompt"), "what is this?"), chromedp.Click(chromedp.CSS("#send")))
	until(t, a, "the model's answer", has(".msg.assistant:not(.streaming)", "I see your screenshot"))
	until(t, a, "the attachment cleared", `document.querySelector('#attachments').hidden && !document.querySelector('#attachments .attachment')`)
	shot(t, a, "attached")
}
