package console_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/console"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// These tests drive the console in headless Chromium (Debian's chromium,
// which `make install` installs) against an in-process cdevd running the
// real Claude CLI against the fake Anthropic API.

// chromiumBin is the browser to drive: $CHROMIUM_BIN, else chromium on
// PATH. In CI a missing browser fails the test; elsewhere it skips, loudly.
func chromiumBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("CHROMIUM_BIN")
	if bin == "" {
		bin = "chromium"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		msg := fmt.Sprintf("chromium not found (%v): run `make install` (apt-get install chromium) or set CHROMIUM_BIN", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// browser starts a headless Chromium for the test and returns a context
// for its first tab.
func browser(t testing.TB) context.Context {
	t.Helper()
	return browserFor(t, 3*claudetest.Timeout)
}

// browserFor is browser, closed after limit.
func browserFor(t testing.TB, limit time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumBin(t)),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root in CI, where the sandbox refuses to start
		chromedp.WindowSize(1200, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancel()
	})
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// tab opens another tab in the same browser.
func tab(t testing.TB, bctx context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	return ctx
}

func startDaemon(t testing.TB, cfg daemon.Config) *daemon.Daemon {
	t.Helper()
	cfg.Home, cfg.Addr = t.TempDir(), "127.0.0.1:0"
	d, err := daemon.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := d.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return d
}

func do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// until waits for a JavaScript predicate to hold in the page.
func until(t testing.TB, ctx context.Context, what, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+js+")", chromedp.WithPollingTimeout(claudetest.Timeout))); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, js, err)
	}
}

func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// shot saves a full-page screenshot under the test's artifact directory
// (kept with `go test -artifacts`). It waits three animation frames first:
// answers scrolled into view are drawn plain and rendered in the frames
// after (upgrade.ts), and the picture shows them rendered.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("screenshot %s: waiting for a frame: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// has is a JavaScript expression: some element matching sel contains text.
func has(sel, text string) string {
	return fmt.Sprintf("[...document.querySelectorAll(%q)].some(e => e.textContent.includes(%q))", sel, text)
}

func TestConsoleSession(t *testing.T) {
	bctx := browser(t)
	fake := fakeanthropic.New(t)
	env := claudetest.Env(t, fake.URL())
	ws := t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: claudetest.Bin(t), Env: env, KillGrace: 2 * time.Second}),
	}})
	const command = "echo made > made.txt"
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		switch {
		case !req.HasTool("Bash"): // the CLI's side requests
			return fakeanthropic.Echo(req)
		case req.LastUserText() == "hello":
			return fakeanthropic.Slow("hello back from the model", 10*time.Millisecond)
		}
		if res, ok := req.ToolResult(); ok {
			return fakeanthropic.Text("the tool said: " + res.ResultText())
		}
		return fakeanthropic.UseTool("Bash", map[string]string{"command": command, "description": "Create made.txt"})
	})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the registry", `document.querySelector('.runtime[data-id="claude"] .status.active')`)
	if h := eval[string](t, a, "location.hash"); h != "" {
		t.Errorf("the token stayed in the address bar: %q", h)
	}
	if tok := eval[string](t, a, "sessionStorage.getItem('cdevd.token')"); tok != d.Token() {
		t.Errorf("sessionStorage token = %q", tok)
	}
	shot(t, a, "1-registry")

	until(t, a, "the workspace", `document.querySelector('.ws')`)
	wid := eval[string](t, a, `document.querySelector('.ws').dataset.id`)
	pick := chromedp.Click(chromedp.CSS(`.ws[data-id="`+wid+`"] .ws-open`), chromedp.NodeVisible)
	do(t, a, "pick the workspace", pick, chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `!document.querySelector('#session').hidden && document.querySelector('#session').dataset.session`)
	id := eval[string](t, a, "document.querySelector('#session').dataset.session")
	if id == "" {
		t.Fatal("no session id on the page")
	}

	do(t, a, "send a prompt", chromedp.SendKeys(chromedp.CSS("#prompt"), "hello"), chromedp.Click(chromedp.CSS("#send")))
	until(t, a, "the answer", has(".msg.assistant:not(.streaming)", "hello back from the model"))
	if n := eval[string](t, a, "document.querySelector('#transcript').dataset.deltas || '0'"); n == "0" {
		t.Error("the answer did not stream: no message_delta rendered")
	}
	until(t, a, "idle", `document.querySelector('#state').textContent === 'idle'`)
	shot(t, a, "2-session")

	// A second page watches the same session from history.
	b := tab(t, bctx)
	do(t, b, "open a second page", chromedp.Navigate(d.ConsoleURL()))
	until(t, b, "the workspace", `document.querySelector('.ws[data-id="`+wid+`"]')`)
	do(t, b, "pick the workspace", pick)
	until(t, b, "the session in history", `document.querySelector('.hist[data-session="`+id+`"]')`)
	do(t, b, "open it", chromedp.Click(chromedp.CSS(`.hist[data-session="`+id+`"]`)))
	until(t, b, "its transcript", has(".msg.assistant", "hello back from the model"))

	do(t, a, "ask for a command", chromedp.SendKeys(chromedp.CSS("#prompt"), "make a file"), chromedp.Click(chromedp.CSS("#send")))
	for _, p := range []context.Context{a, b} {
		until(t, p, "the permission prompt", has(".prompt.permission", command))
	}
	until(t, a, "state permission", `document.querySelector('#state').textContent === 'permission'`)
	shot(t, a, "3-permission")
	do(t, a, "allow", chromedp.Click(chromedp.CSS(`.prompt.permission button[data-key="yes"]`)))
	for _, p := range []context.Context{a, b} {
		until(t, p, "the prompt resolved", `!document.querySelector('.prompt') && document.querySelector('.note.resolved')`)
		until(t, p, "the tool's result", has(".tool-result", "made.txt")+" || "+has(".msg.assistant", "the tool said"))
	}
	until(t, a, "the answer after the tool", has(".msg.assistant", "the tool said"))
	if got, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(got) != "made\n" {
		t.Errorf("made.txt = %q, %v: the allowed command did not run", got, err)
	}

	// After a reload the session is found in history with its transcript.
	do(t, a, "reload", chromedp.Reload())
	until(t, a, "the workspace after reload", `document.querySelector('.ws[data-id="`+wid+`"]')`)
	do(t, a, "pick the workspace", pick)
	until(t, a, "the session in history", `document.querySelector('.hist[data-session="`+id+`"]')`)
	do(t, a, "open it", chromedp.Click(chromedp.CSS(`.hist[data-session="`+id+`"]`)))
	until(t, a, "the stored transcript", has(".msg.user", "hello")+" && "+has(".msg.assistant", "the tool said")+
		" && document.querySelector('.tool-use')")
	shot(t, a, "4-history")

	do(t, a, "stop", chromedp.Click(chromedp.CSS("#stop")))
	for _, p := range []context.Context{a, b} {
		until(t, p, "stopped", `document.querySelector('#state').textContent === 'stopped'`)
	}

	do(t, a, "phone width", chromedp.EmulateViewport(390, 844))
	shot(t, a, "5-phone")
}

func TestConsoleWrongTokenAndDisabledRuntime(t *testing.T) {
	bctx := browser(t)
	const reason = "turned off for this test"
	d := startDaemon(t, daemon.Config{
		Adapters: []runtimes.Adapter{claude.New(claude.Config{Bin: claudetest.Bin(t)})},
		Disabled: map[string]string{claude.ID: reason},
	})
	base, _, _ := strings.Cut(d.ConsoleURL(), "#")

	a := tab(t, bctx)
	do(t, a, "open with a wrong token", chromedp.Navigate(base+"#token=wrong"))
	until(t, a, "the refusal", `!document.querySelector('#login').hidden && document.querySelector('#login.refused')`)
	if tok := eval[bool](t, a, "sessionStorage.getItem('cdevd.token') === null"); !tok {
		t.Error("the refused token was kept")
	}
	shot(t, a, "6-wrong-token")

	// The right token typed in gets through.
	do(t, a, "type the token", chromedp.SendKeys(chromedp.CSS("#token-input"), d.Token()),
		chromedp.Click(chromedp.CSS("#token-submit")))
	until(t, a, "the disabled runtime", has(`.runtime[data-id="claude"] .reason`, reason)+
		` && document.querySelector('.runtime[data-id="claude"] .status.disabled')`)
	if !eval[bool](t, a, `document.querySelector('#start-runtime option[value="claude"]').disabled`) {
		t.Error("a disabled runtime can be picked to start a session")
	}
	shot(t, a, "7-disabled-runtime")
}

// --no-console: no page at /, no console URL, and the page's origin is as
// foreign as any other.
func TestNoConsole(t *testing.T) {
	d := startDaemon(t, daemon.Config{NoConsole: true})
	if u := d.ConsoleURL(); u != "" {
		t.Errorf("ConsoleURL = %q with NoConsole", u)
	}
	resp, err := http.Get("http://" + d.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET / = %d, want 404", resp.StatusCode)
	}
	with := startDaemon(t, daemon.Config{})
	resp, err = http.Get("http://" + with.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Security-Policy") != console.CSP {
		t.Errorf("GET / = %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
}
