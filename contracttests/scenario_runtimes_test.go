package contracttests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/internal/fakeanthropic"
	"github.com/cdevd/cdevd/internal/fakeopenai"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/codex"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
)

// The runtimes the scenario suite (scenarios_test.go) runs against. Adding
// a runtime is one entry here: how to start its fake model API and make it
// play the suite's model, its adapter, and how a user runs it in a terminal.
var scenarioRuntimes = []scenarioRuntime{
	{
		id: claude.ID,
		// Claude Code asks its questions (AskUserQuestion) in any mode.
		questionMode: rpc.PermissionDefault,
		start:        startClaudeScenario,
	},
	{
		id: codex.ID,
		// Codex offers request_user_input in plan mode only.
		questionMode: rpc.PermissionPlan,
		start:        startCodexScenario,
	},
}

// scenarioRuntime is one runtime under the scenario suite.
type scenarioRuntime struct {
	id string
	// questionMode is the permission_mode in which the runtime's model may
	// ask the user a question.
	questionMode rpc.PermissionMode
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
			reqs := fake.MessageRequests()
			if len(reqs) == 0 {
				t.Fatal("the model received no request")
			}
			return reqs[len(reqs)-1].Transcript()
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
			reqs := api.ResponseRequests()
			if len(reqs) == 0 {
				t.Fatal("the model received no request")
			}
			return reqs[len(reqs)-1].Transcript()
		},
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
