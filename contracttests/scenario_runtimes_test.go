package contracttests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
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

// The runtimes the scenario suite (scenarios_test.go) runs against. Adding
// a runtime is one entry here: how to start its fake model API and make it
// play the suite's model, its adapter, and how a user runs it in a terminal.
var scenarioRuntimes = []scenarioRuntime{
	{
		id: claude.ID,
		// Claude Code asks its questions (AskUserQuestion) in any mode.
		questionMode:    rpc.PermissionDefault,
		configureModel:  "sonnet",
		configureEffort: "low",
		commands:        true,
		start:           startClaudeScenario,
	},
	{
		id: codex.ID,
		// Codex offers request_user_input in plan mode only.
		questionMode:    rpc.PermissionPlan,
		configureModel:  "gpt-6-luna",
		configureEffort: "high",
		// The app-server runs no slash commands (the terminal UI's).
		start: startCodexScenario,
	},
	{
		id: gemini.ID,
		// Gemini removes its ask_user tool in ACP mode: no question mode.
		questionMode: "",
		// Gemini's own order: "Allow for this session" comes first.
		permissionKeys: []string{"always", "yes", "no"},
		// The adapter loads a session only once the minute of its chat
		// file has turned (Gemini would write over it otherwise).
		loadWait: time.Minute,
		// ACP has no effort setting.
		configureModel: "gemini-2.5-pro",
		commands:       true,
		start:          startGeminiScenario,
	},
}

// scenarioRuntime is one runtime under the scenario suite.
type scenarioRuntime struct {
	id string
	// questionMode is the permission_mode in which the runtime's model may
	// ask the user a question; "" says that the runtime asks none (its
	// registry record must agree).
	questionMode rpc.PermissionMode
	// permissionKeys are the option keys of a shell command's
	// pty_permission, in the runtime's own order; nil means yes, always, no.
	permissionKeys []string
	// loadWait is how long a resume may legitimately wait before the CLI
	// gets the session back, beyond the suite's usual deadline.
	loadWait time.Duration
	// configureModel is a model of the record, not the default, that
	// session/configure switches to, with configureEffort ("" for a
	// runtime without efforts).
	configureModel, configureEffort string
	// commands: the CLI lists slash commands (the record must show them).
	commands bool
	// start starts the runtime's fake model API playing m and returns its
	// adapter, whose CLI's environment carries mark.
	start func(t *testing.T, mark string, m model) runtimeRig
}

// runtimeRig is a runtime ready for the suite.
type runtimeRig struct {
	adapter runtimes.Adapter
	// outside runs one turn in dir the way a user does in a terminal,
	// resuming session resume unless it is empty, and returns the session id.
	outside func(t *testing.T, ctx context.Context, dir, prompt, resume string) string
	// lastHistory is the conversation the model received last, one
	// "role: text" line per message.
	lastHistory func(t *testing.T) string
	// lastModel is the model (and reasoning effort, "" when none) of the
	// last request the model API received.
	lastModel func(t *testing.T) (model, effort string)
	// images are every image the model received, decoded, in order.
	images func() [][]byte
}

// move is what the suite's model does in reply to one request, in terms
// every runtime's fake can play.
type move struct {
	text  string        // say this
	delay time.Duration // streaming the text one word per delay
	run   string        // call the runtime's shell tool with this command
	ask   *askQuestion  // ask the user through the runtime's question tool
}

// askQuestion is a single-choice question.
type askQuestion struct {
	question, header string
	options          []string
}

// model decides the next move from the user's last prompt, or from the
// result of the tool the model called last (toolResult non-nil).
type model func(prompt string, toolResult *string) move

func startClaudeScenario(t *testing.T, mark string, m model) runtimeRig {
	fake := fakeanthropic.New(t)
	fake.Respond(func(req fakeanthropic.Request) fakeanthropic.Reply {
		// The CLI's side requests (titles, summaries) offer no tools.
		if !req.HasTool("Bash") {
			return fakeanthropic.Echo(req)
		}
		var mv move
		if b, ok := req.ToolResult(); ok {
			s := b.ResultText()
			mv = m("", &s)
		} else {
			mv = m(req.LastUserText(), nil)
		}
		switch {
		case mv.run != "":
			return fakeanthropic.UseTool("Bash", map[string]string{"command": mv.run, "description": "Run " + mv.run})
		case mv.ask != nil:
			var opts []any
			for _, o := range mv.ask.options {
				opts = append(opts, map[string]string{"label": o, "description": "choose " + o})
			}
			return fakeanthropic.UseTool("AskUserQuestion", map[string]any{"questions": []any{map[string]any{
				"question": mv.ask.question, "header": mv.ask.header, "multiSelect": false, "options": opts}}})
		case mv.delay > 0:
			return fakeanthropic.Slow(mv.text, mv.delay)
		}
		return fakeanthropic.Text(mv.text)
	})
	bin := claudetest.Bin(t)
	env := append(claudetest.Env(t, fake.URL()), mark)
	return runtimeRig{
		adapter: claude.New(claude.Config{Bin: bin, Env: env, KillGrace: 2 * time.Second}),
		outside: func(t *testing.T, ctx context.Context, dir, prompt, resume string) string {
			t.Helper()
			id, flag := resume, "--resume="+resume
			if resume == "" {
				id = uuid.NewString()
				flag = "--session-id=" + id
			}
			out := runCLI(t, ctx, dir, env, bin, "-p", prompt, "--output-format=json", flag)
			var res struct {
				SessionID string `json:"session_id"`
				IsError   bool   `json:"is_error"`
			}
			if err := json.Unmarshal(out, &res); err != nil || res.IsError || res.SessionID != id {
				t.Fatalf("claude -p %q printed %s (%v), want session %s", prompt, out, err, id)
			}
			return id
		},
		lastHistory: func(t *testing.T) string {
			return fake.LastMessageRequest(t).Transcript()
		},
		lastModel: func(t *testing.T) (string, string) {
			last := fake.LastMessageRequest(t)
			return last.Model, last.Effort()
		},
		images: func() [][]byte {
			var out [][]byte
			for _, q := range fake.MessageRequests() {
				for _, im := range q.Images() {
					out = append(out, im.Data)
				}
			}
			return out
		},
	}
}

func startCodexScenario(t *testing.T, mark string, m model) runtimeRig {
	api := fakeopenai.New(t)
	api.Respond(func(req fakeopenai.Request) fakeopenai.Reply {
		var mv move
		if out, ok := req.CallOutput(); ok {
			s := out.OutputText()
			mv = m("", &s)
		} else {
			mv = m(req.LastUserText(), nil)
		}
		switch {
		case mv.run != "":
			return fakeopenai.Exec(mv.run)
		case mv.ask != nil:
			var opts []map[string]string
			for _, o := range mv.ask.options {
				opts = append(opts, map[string]string{"label": o, "description": "choose " + o})
			}
			return fakeopenai.Call("request_user_input", map[string]any{"questions": []map[string]any{{
				"id": "q1", "header": mv.ask.header, "question": mv.ask.question, "options": opts}}})
		case mv.delay > 0:
			return fakeopenai.Slow(mv.text, mv.delay)
		}
		return fakeopenai.Text(mv.text)
	})
	bin := codextest.Bin(t)
	env := append(codextest.Env(t, api.BaseURL()), mark)
	t.Cleanup(func() {
		if u := api.Unexpected(); len(u) > 0 {
			t.Errorf("the Codex CLI called the fake API outside the Responses API: %+v", u)
		}
	})
	return runtimeRig{
		adapter: codex.New(codex.Config{Bin: bin, Env: env, KillGrace: 5 * time.Second}),
		outside: func(t *testing.T, ctx context.Context, dir, prompt, resume string) string {
			t.Helper()
			args := []string{"exec", "--json", "--skip-git-repo-check"}
			if resume != "" {
				args = append(args, "resume", resume)
			}
			out := runCLI(t, ctx, dir, env, bin, append(args, prompt)...)
			// --json prints one event a line; thread.started names the thread.
			var id string
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				var ev struct {
					Type     string `json:"type"`
					ThreadID string `json:"thread_id"`
				}
				if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "thread.started" {
					id = ev.ThreadID
				}
			}
			if id == "" || (resume != "" && id != resume) {
				t.Fatalf("codex exec %q printed thread %q (resuming %q):\n%s", prompt, id, resume, out)
			}
			return id
		},
		lastHistory: func(t *testing.T) string {
			return api.LastResponseRequest(t).Transcript()
		},
		lastModel: func(t *testing.T) (string, string) {
			last := api.LastResponseRequest(t)
			return last.Model, last.Effort()
		},
		images: func() [][]byte {
			var out [][]byte
			for _, q := range api.ResponseRequests() {
				for _, im := range q.Images() {
					out = append(out, im.Data)
				}
			}
			return out
		},
	}
}

func startGeminiScenario(t *testing.T, mark string, m model) runtimeRig {
	api := fakegemini.New(t)
	api.Respond(func(req fakegemini.Request) fakegemini.Reply {
		var mv move
		if resp, ok := req.FunctionResponse(); ok {
			// The tool's result as the CLI returns it: {"output": …} or
			// {"error": …}. Answered with text: a call again would loop.
			s := string(resp.Response)
			mv = m("", &s)
		} else {
			mv = m(req.LastUserText(), nil)
		}
		switch {
		case mv.run != "":
			return fakegemini.Shell(mv.run)
		case mv.ask != nil:
			// Unreachable while the suite honours questionMode "".
			t.Errorf("the suite asked gemini, which has no question tool in ACP mode, to ask %q", mv.ask.question)
			return fakegemini.Fail(400, "INVALID_ARGUMENT", "gemini has no question tool")
		case mv.delay > 0:
			return fakegemini.Slow(mv.text, mv.delay)
		}
		return fakegemini.Text(mv.text)
	})
	bin := geminitest.Bin(t)
	env := append(geminitest.Env(t, api.URL()), mark)
	t.Cleanup(func() {
		if u := api.Unexpected(); len(u) > 0 {
			t.Errorf("the Gemini CLI called the fake API outside streamGenerateContent: %+v", u)
		}
	})
	return runtimeRig{
		adapter: gemini.New(gemini.Config{Bin: bin, Env: env, KillGrace: 5 * time.Second}),
		outside: func(t *testing.T, ctx context.Context, dir, prompt, resume string) string {
			t.Helper()
			// gemini -p refuses to run in a folder the user has not trusted.
			trustFolder(t, geminitest.Home(env), dir)
			id, flag := resume, "--resume="+resume
			if resume == "" {
				id = uuid.NewString()
				flag = "--session-id=" + id
			}
			out := runCLI(t, ctx, dir, env, bin, "-p", prompt, "--output-format=json", flag)
			var res struct {
				SessionID string          `json:"session_id"`
				Response  string          `json:"response"`
				Error     json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(out, &res); err != nil || res.Error != nil || res.SessionID != id {
				t.Fatalf("gemini -p %q printed %s (%v), want session %s", prompt, out, err, id)
			}
			return id
		},
		lastHistory: func(t *testing.T) string {
			return geminiHistory(api.LastGenerateRequest(t))
		},
		lastModel: func(t *testing.T) (string, string) {
			return api.LastGenerateRequest(t).Model, ""
		},
		images: func() [][]byte {
			var out [][]byte
			for _, q := range api.GenerateRequests() {
				for _, im := range q.Images() {
					out = append(out, im.Data)
				}
			}
			return out
		},
	}
}

// geminiHistory renders the conversation a request carries the way the
// suite reads it, one "role: text" line per text part, the model's role
// being "assistant" (fakegemini's Transcript says "model").
func geminiHistory(req fakegemini.Request) string {
	var b strings.Builder
	for _, c := range req.Contents {
		role := c.Role
		if role == "model" {
			role = "assistant"
		}
		for _, p := range c.Parts {
			if p.Text != "" && !p.Thought {
				fmt.Fprintf(&b, "%s: %s\n", role, p.Text)
			}
		}
	}
	return b.String()
}

// trustFolder adds dir to Gemini's trusted folders under home, as a user
// answering Gemini's trust prompt does.
func trustFolder(t *testing.T, home, dir string) {
	t.Helper()
	path := filepath.Join(home, ".gemini", "trustedFolders.json")
	trusted := map[string]string{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &trusted); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	trusted[dir] = "TRUST_FOLDER"
	b, err := json.Marshal(trusted)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// runCLI runs a CLI to its end in dir with env and returns its stdout.
func runCLI(t *testing.T, ctx context.Context, dir string, env []string, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v\nstdout: %s\nstderr: %s", bin, args, err, out, stderr.String())
	}
	return out
}
