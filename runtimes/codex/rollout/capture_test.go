package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// TestRealExecRollout has the real CLI write a rollout with `codex exec`:
// a turn with reasoning, an exec_command call and its output, then a second
// turn (`exec resume`) appended to the same file. The Store must read it
// back as the expected messages; with -update it is stored as
// testdata/exec.jsonl, its temporary paths replaced by placeholders.
func TestRealExecRollout(t *testing.T) {
	api := fakeopenai.New(t)
	var n atomic.Int32
	api.Respond(func(fakeopenai.Request) fakeopenai.Reply {
		switch n.Add(1) {
		case 1:
			return fakeopenai.Reply{Reasoning: "Listing the folder.",
				Call: &fakeopenai.FunctionCall{Name: "exec_command", Arguments: map[string]string{"cmd": "echo made by codex"}}}
		case 2:
			return fakeopenai.Text("The command printed: made by codex.")
		default:
			return fakeopenai.Think("Second thoughts.", "Second answer.")
		}
	})
	env := codextest.Env(t, api.BaseURL())
	ws := t.TempDir()
	run := func(args ...string) {
		cmd := exec.CommandContext(codextest.Context(t), codextest.Bin(t), args...)
		cmd.Env, cmd.Dir = env, ws // nil stdin is /dev/null
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if out, err := cmd.Output(); err != nil {
			t.Fatalf("codex %v: %v\nstdout: %s\nstderr: %s", args, err, out, stderr.String())
		}
	}
	// No sandbox: the container may not offer one, and no approval is wanted.
	flags := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
	run(append(flags, "run echo please")...)
	run(append(flags, "resume", "--last", "and again")...)

	codexHome := filepath.Join(codextest.Home(env), ".codex")
	s := newStore(t, codexHome)
	list, err := s.List(context.Background(), ws)
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %+v, %v", list, err)
	}
	id := list[0].SessionID
	if list[0].Summary != "run echo please" || list[0].MessageCount != 7 {
		t.Errorf("summary %+v", list[0])
	}
	msgs, total, err := s.Messages(context.Background(), ws, id, 0, 100, false)
	if err != nil || total != 7 {
		t.Fatalf("Messages: %d, %v", total, err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, describe(m))
	}
	want := []string{
		"user text:run echo please",
		"assistant thinking:Listing the folder.",
		`assistant tool_use:Bash {"command":"echo made by codex"} call_fake_1 tool_result:call_fake_1 made by codex`,
		"assistant text:The command printed: made by codex.",
		"user text:and again",
		"assistant thinking:Second thoughts.",
		"assistant text:Second answer.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if *update {
		p, _ := s.Locate(id)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(codexHome), []byte(homePlaceholder))
		b = bytes.ReplaceAll(b, []byte(ws), []byte(wsPlaceholder))
		b = bytes.ReplaceAll(b, []byte(id), []byte(threadA))
		if bytes.Contains(b, []byte(os.TempDir())) {
			t.Fatalf("a temporary path is left in the rollout")
		}
		if err := os.WriteFile(filepath.Join("testdata", "exec.jsonl"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// describe is a one-line digest of a message for comparisons.
func describe(m rpc.Message) string {
	var parts []string
	for _, b := range m.Message.Content {
		switch b.Type {
		case rpc.BlockText:
			parts = append(parts, "text:"+b.Text)
		case rpc.BlockThinking:
			parts = append(parts, "thinking:"+b.Thinking)
		case rpc.BlockToolUse:
			parts = append(parts, "tool_use:"+b.Name+" "+string(b.Input)+" "+b.ID)
		case rpc.BlockToolResult:
			var out string
			_ = json.Unmarshal(b.Content, &out)
			// Only the command's output: the header (chunk id, wall time) varies.
			if _, o, ok := strings.Cut(out, "Output:\n"); ok {
				out = o
			}
			parts = append(parts, "tool_result:"+b.ToolUseID+" "+strings.TrimSpace(out))
		}
	}
	return string(m.Type) + " " + strings.Join(parts, " ")
}
