package main

// `cdevd serve --demo`: the real CLIs against the bundled fake model APIs
// (testdoubles), in a throwaway home removed on exit, so that a person sees
// a streamed answer, a permission prompt and a tool's result without any
// account. Nothing is written to the user's ~/.claude, ~/.codex, ~/.gemini
// or ~/.config/cdevd: every CLI runs with a HOME of the demo's own, from an
// environment built from scratch (PATH only from outside, no keys).

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/internal/config"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/codex"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/runtimes/gemini"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// demoBanner is what serve --demo prints first.
const demoBanner = "DEMO: answers come from a fake model on 127.0.0.1, no account used"

// demoSuffix marks each runtime's DisplayName in the registry (and so in
// the console and the apps) as a demo.
const demoSuffix = " (demo)"

// demoCommand is the shell command the fake model asks to run: a write, so
// that every CLI asks permission first (ls alone is auto-approved by some).
const demoCommand = `echo "Hello from the cdevd demo" > hello.txt && ls -l`

// demo is a running demo: the fakes and the throwaway directories.
type demo struct {
	root      string // removed by Close
	cdevdHome string
	workspace string // the temp workspace, "" when --workspace was given
	anthropic *fakeanthropic.Server
	openai    *fakeopenai.Server
	gemini    *fakegemini.Server
	env       map[string][]string // each runtime's whole environment
}

// startDemo checks o for the demo (loopback only; a free port unless
// --addr was given; a temp workspace unless --workspace was), makes the
// throwaway home and starts the fakes.
// errDemoRemote refuses --demo with --allow-remote (checkServe, startDemo).
var errDemoRemote = errors.New("--demo listens on loopback only: drop --allow-remote")

func startDemo(fs *flag.FlagSet, o *serveOptions, stdout io.Writer) (*demo, error) {
	if o.allowRemote {
		return nil, errDemoRemote
	}
	addrSet := false
	fs.Visit(func(f *flag.Flag) { addrSet = addrSet || f.Name == "addr" })
	if !addrSet {
		o.addr = "127.0.0.1:0"
	}
	root, err := os.MkdirTemp("", "cdevd-demo-")
	if err != nil {
		return nil, err
	}
	d := &demo{root: root, cdevdHome: filepath.Join(root, "cdevd")}
	ok := false
	defer func() {
		if !ok {
			d.Close()
		}
	}()
	if err := os.Mkdir(d.cdevdHome, 0o700); err != nil {
		return nil, err
	}
	if len(o.workspaces) == 0 {
		d.workspace = filepath.Join(root, "workspace")
		if err := os.Mkdir(d.workspace, 0o700); err != nil {
			return nil, err
		}
		o.workspaces = multiFlag{d.workspace}
	}
	d.anthropic, d.openai, d.gemini = fakeanthropic.Serve(), fakeopenai.Serve(), fakegemini.Serve()
	d.anthropic.Respond(demoClaude)
	d.openai.Respond(demoCodex)
	d.gemini.Respond(demoGemini)
	if d.env, err = d.environments(); err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout, demoBanner)
	fmt.Fprintf(stdout, "demo: throwaway home %s (removed on exit)\n", root)
	if d.workspace != "" {
		fmt.Fprintf(stdout, "demo: workspace %s\n", d.workspace)
	}
	ok = true
	return d, nil
}

// Close stops the fakes and removes the throwaway home.
func (d *demo) Close() {
	if d.anthropic != nil {
		d.anthropic.Close()
	}
	if d.openai != nil {
		d.openai.Close()
	}
	if d.gemini != nil {
		d.gemini.Close()
	}
	_ = os.RemoveAll(d.root)
}

// environments builds each CLI's whole environment with its test
// harness's own functions (claudetest, codextest, geminitest): PATH from
// outside and nothing else of it, HOME and TMPDIR of the demo's own,
// proxies at a closed loopback port so that any attempt to reach the
// internet fails at once, and the settings that point the CLI at its fake.
func (d *demo) environments() (map[string][]string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	closed := l.Addr().String()
	l.Close()
	base := func(id string) ([]string, error) {
		home := filepath.Join(d.root, "home-"+id)
		tmp := filepath.Join(d.root, "tmp-"+id)
		for _, dir := range []string{home, tmp} {
			if err := os.Mkdir(dir, 0o700); err != nil {
				return nil, err
			}
		}
		return clitest.Hermetic(home, tmp, closed), nil
	}
	env := map[string][]string{}
	e, err := base(claude.ID)
	if err != nil {
		return nil, err
	}
	env[claude.ID] = claudetest.Point(e, d.anthropic.URL(), "demo")
	if e, err = base(codex.ID); err != nil {
		return nil, err
	}
	if env[codex.ID], err = codextest.Point(e, d.openai.BaseURL(), "demo"); err != nil {
		return nil, err
	}
	if e, err = base(gemini.ID); err != nil {
		return nil, err
	}
	if env[gemini.ID], err = geminitest.Point(e, d.gemini.URL(), "demo"); err != nil {
		return nil, err
	}
	// Where the CLIs are is the one thing taken from cdevd's environment:
	// the variable each runtime declares (CLAUDE_BIN…), read where the
	// adapter looks for it.
	for _, info := range builtinInfos() {
		if v := os.Getenv(info.CLI.BinEnv); info.CLI.BinEnv != "" && v != "" {
			env[info.ID] = append(env[info.ID], info.CLI.BinEnv+"="+v)
		}
	}
	return env, nil
}

// adapters are the built-in runtimes, as serve registers them, run in the
// demo's environments and each labelled a demo. The CLIs are found as serve
// finds them: $CLAUDE_BIN, $CODEX_BIN, $GEMINI_BIN, else on PATH (`make
// demo` puts the pinned ones first).
func (d *demo) adapters(log *zap.Logger, stall time.Duration, home string) []runtimes.Adapter {
	var as []runtimes.Adapter
	for _, a := range adaptersIn(log, stall, config.Config{}, home, d.env) {
		as = append(as, demoAdapter{a})
	}
	return as
}

// demoAdapter is a runtime whose DisplayName says it is a demo.
type demoAdapter struct{ runtimes.Adapter }

func (a demoAdapter) Info() runtimes.Info {
	info := a.Adapter.Info()
	info.DisplayName += demoSuffix
	return info
}

// The fake model's answers. A prompt that asks to run something, and every
// first turn, gets a shell command (which the CLI asks permission for);
// the command's output gets a markdown answer quoting it; anything else a
// short markdown answer, streamed a word at a time.

var asksToRun = regexp.MustCompile(`(?i)\b(run|ls|list|files?|command|shell|create|make|write|touch|exec)\b`)

const demoWordDelay = 25 * time.Millisecond

func demoAnswer(cli string) string {
	return "**This is cdevd's demo.** This answer comes from a fake model on 127.0.0.1, streamed " +
		"through the real " + cli + " — no account, nothing leaves this machine.\n\n" +
		"- Ask me to *run* something (say \"list the files\") and " + cli + " asks your permission first.\n" +
		"- Everything happens in a throwaway folder, removed when the demo stops.\n"
}

// refused is the answer to a command the user did not allow.
const refused = "You did not allow the command, so nothing ran. Ask me to *run* something to see the prompt again.\n"

// deniedByUser matches what Codex tells the model of a declined command.
var deniedByUser = regexp.MustCompile(`(?i)rejected|declined|denied|not approved`)

// demoResult quotes the command's output as an indented (markdown) code
// block, which reads as well where markdown is not rendered (the console).
func demoResult(out string) string {
	out = strings.TrimSpace(out)
	if len(out) > 2000 {
		out = out[:2000] + "\n…"
	}
	return "**The command ran** in the workspace. Its output:\n\n    " + strings.ReplaceAll(out, "\n", "\n    ") +
		"\n\nA real CLI ran a real command once you allowed it; only the model is fake.\n"
}

func demoClaude(r fakeanthropic.Request) fakeanthropic.Reply {
	if !r.HasTool("Bash") { // the CLI's side requests (titles, summaries)
		return fakeanthropic.Text("cdevd demo")
	}
	if res, ok := r.ToolResult(); ok {
		if res.IsError {
			return fakeanthropic.Slow(refused, demoWordDelay)
		}
		return fakeanthropic.Slow(demoResult(res.ResultText()), demoWordDelay)
	}
	first := true
	for _, m := range r.Messages {
		first = first && m.Role != "assistant"
	}
	if first || asksToRun.MatchString(r.LastUserText()) {
		return fakeanthropic.Reply{Thinking: "The user wants to see a command run: write a file, then list the folder.",
			Text: "Let me write a file and list the workspace.",
			Tool: &fakeanthropic.ToolCall{Name: "Bash", Input: map[string]string{
				"command": demoCommand, "description": "Write hello.txt and list the workspace"}}}
	}
	return fakeanthropic.Slow(demoAnswer("Claude Code"), demoWordDelay)
}

func demoCodex(r fakeopenai.Request) fakeopenai.Reply {
	if out, ok := r.CallOutput(); ok {
		if deniedByUser.MatchString(out.OutputText()) && !strings.Contains(out.OutputText(), "hello.txt") {
			return fakeopenai.Slow(refused, demoWordDelay)
		}
		return fakeopenai.Slow(demoResult(out.OutputText()), demoWordDelay)
	}
	first := true
	for _, it := range r.Input {
		first = first && it.Type != "function_call" && !(it.Type == "message" && it.Role == "assistant")
	}
	if first || asksToRun.MatchString(r.LastUserText()) {
		return fakeopenai.Exec(demoCommand)
	}
	return fakeopenai.Slow(demoAnswer("Codex CLI"), demoWordDelay)
}

func demoGemini(r fakegemini.Request) fakegemini.Reply {
	if !r.HasTool("run_shell_command") { // the CLI's side requests
		return fakegemini.Text("cdevd demo")
	}
	if resp, ok := r.FunctionResponse(); ok {
		var out struct {
			Output string `json:"output"`
		}
		text := string(resp.Response)
		if strings.Contains(text, `"error"`) {
			return fakegemini.Slow(refused, demoWordDelay)
		}
		if json.Unmarshal(resp.Response, &out) == nil && out.Output != "" {
			text = out.Output
		}
		return fakegemini.Slow(demoResult(text), demoWordDelay)
	}
	first := true
	for _, c := range r.Contents {
		first = first && c.Role != "model"
	}
	if first || asksToRun.MatchString(r.LastUserText()) {
		return fakegemini.Shell(demoCommand)
	}
	return fakegemini.Slow(demoAnswer("Gemini CLI"), demoWordDelay)
}
