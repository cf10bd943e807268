package console_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/internal/clitest"
)

// demoToken is the CDEVD_TOKEN the demo runs with.
const demoToken = "demo-token-0123456789abcdef0123456789"

// TestConsoleDemo builds cdevd, runs `cdevd serve --demo` (the real CLIs
// against the bundled fake models, in a throwaway home) and drives a
// Claude Code turn through the console in headless Chromium: the runtime
// labelled a demo, a permission prompt for the demo's command, its result
// and the streamed answers. Then Ctrl-C removes the demo's home and leaves
// HOME untouched. A missing Chromium or CLI fails the test, never skips it.
func TestConsoleDemo(t *testing.T) {
	if _, err := exec.LookPath(chromiumPath()); err != nil {
		t.Fatalf("chromium not found (%v): the demo's browser test needs it; run `make install` (apt-get install chromium) or set CHROMIUM_BIN", err)
	}
	bin := filepath.Join(t.TempDir(), "cdevd")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cdevd/cdevd/cmd/cdevd").CombinedOutput(); err != nil {
		t.Fatalf("go build cdevd: %v\n%s", err, out)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--demo", "--log-format", "json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + t.TempDir(), "CDEVD_TOKEN=" + demoToken,
		"CLAUDE_BIN=" + clitest.Bin(t, "CLAUDE_BIN", "claude"),
		"CODEX_BIN=" + clitest.Bin(t, "CODEX_BIN", "codex"),
		"GEMINI_BIN=" + clitest.Bin(t, "GEMINI_BIN", "gemini")}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var printed []string
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("cdevd printed:\n%s", strings.Join(printed, "\n"))
		}
	})
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			got = append(got, sc.Text())
			if strings.HasPrefix(sc.Text(), "console:") {
				break
			}
		}
		lines <- got
		for sc.Scan() { // keep the pipe drained
		}
	}()
	select {
	case printed = <-lines:
	case <-time.After(60 * time.Second):
		t.Fatal("cdevd --demo printed no console line")
	}
	out := strings.Join(printed, "\n")
	if !strings.HasPrefix(out, "DEMO: answers come from a fake model on 127.0.0.1, no account used\n") {
		t.Errorf("no demo banner first: %q", out)
	}
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(out)
	root := regexp.MustCompile(`demo: throwaway home (\S+)`).FindStringSubmatch(out)
	ws := regexp.MustCompile(`demo: workspace (\S+)`).FindStringSubmatch(out)
	if base == "" || root == nil || ws == nil {
		t.Fatalf("no console URL, home or workspace in %q", out)
	}

	bctx := browser(t)
	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(base+"#token="+demoToken))
	until(t, a, "claude active in the registry", `document.querySelector('.runtime[data-id="claude"] .status.active')`)
	until(t, a, "the demo label", has(`.runtime[data-id="claude"]`, "Claude Code (demo)"))
	shot(t, a, "demo-1-registry")

	until(t, a, "the workspace", `document.querySelector('.ws')`)
	wid := eval[string](t, a, `document.querySelector('.ws').dataset.id`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws[data-id="`+wid+`"] .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	if got := eval[string](t, a, `document.querySelector('#start-runtime').value`); got != "claude" {
		t.Fatalf("the runtime to start is %q, want claude", got)
	}
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `!document.querySelector('#session').hidden && document.querySelector('#session').dataset.session`)

	// The first turn asks to run the demo's command.
	do(t, a, "send a prompt", chromedp.SendKeys(chromedp.CSS("#prompt"), "hello"), chromedp.Click(chromedp.CSS("#send")))
	until(t, a, "the permission prompt", has(".prompt.permission", "hello.txt"))
	shot(t, a, "demo-2-permission")
	do(t, a, "allow", chromedp.Click(chromedp.CSS(`.prompt.permission button[data-key="yes"]`)))
	until(t, a, "the tool's result", has(".tool-result", "hello.txt"))
	until(t, a, "the answer quoting it", has(".msg.assistant:not(.streaming)", "only the model is fake")+" && "+
		has(".msg.assistant", "hello.txt"))
	until(t, a, "idle", `document.querySelector('#state').textContent === 'idle'`)
	if b, err := os.ReadFile(filepath.Join(ws[1], "hello.txt")); err != nil || !strings.Contains(string(b), "Hello from the cdevd demo") {
		t.Errorf("hello.txt = %q, %v: the allowed command did not run", b, err)
	}

	// Any other prompt gets the streamed markdown answer.
	do(t, a, "send another", chromedp.SendKeys(chromedp.CSS("#prompt"), "what is this?"), chromedp.Click(chromedp.CSS("#send")))
	until(t, a, "the demo's answer", has(".msg.assistant:not(.streaming)", "This is cdevd's demo."))
	if n := eval[string](t, a, "document.querySelector('#transcript').dataset.deltas || '0'"); n == "0" {
		t.Error("the answers did not stream: no message_delta rendered")
	}
	until(t, a, "idle again", `document.querySelector('#state').textContent === 'idle'`)
	shot(t, a, "demo-3-answers")

	// Ctrl-C: the demo's home goes, HOME was never written.
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Errorf("cdevd --demo after SIGINT: %v\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("cdevd --demo did not exit after SIGINT")
	}
	if _, err := os.Stat(root[1]); !os.IsNotExist(err) {
		t.Errorf("the demo's home %s is still there (%v)", root[1], err)
	}
	if left, _ := os.ReadDir(home); len(left) != 0 {
		t.Errorf("the demo wrote to HOME: %v", left)
	}
}

// chromiumPath is the browser browser() starts: $CHROMIUM_BIN, else chromium.
func chromiumPath() string {
	if bin := os.Getenv("CHROMIUM_BIN"); bin != "" {
		return bin
	}
	return "chromium"
}
