package codextest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// TestExecJSON runs `codex exec --json` against the fake: the one-shot path
// a watch test uses to write a rollout outside cdevd.
func TestExecJSON(t *testing.T) {
	api := fakeopenai.New(t)
	api.Respond(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Text("Hello from the fake.") })
	env := Env(t, api.BaseURL())
	ws := t.TempDir()
	cmd := exec.CommandContext(Context(t), Bin(t), "exec", "--json", "--skip-git-repo-check", "hi")
	cmd.Env, cmd.Dir, cmd.Stdin = env, ws, nil // nil stdin is /dev/null
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex exec: %v\nstderr: %s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("codex exec stderr: %s", stderr.String())
	}
	var types []string
	var threadID, text string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Item     struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		types = append(types, ev.Type)
		if ev.Type == "thread.started" {
			threadID = ev.ThreadID
		}
		if ev.Type == "item.completed" && ev.Item.Type == "agent_message" {
			text = ev.Item.Text
		}
	}
	if len(types) < 3 || types[1] != "turn.started" || types[0] != "thread.started" || types[len(types)-1] != "turn.completed" || threadID == "" {
		t.Errorf("events %v, thread %q", types, threadID)
	}
	if text != "Hello from the fake." {
		t.Errorf("agent message %q", text)
	}
	// Codex 0.169.0 offers exec_command (not shell) for commands: what
	// fakeopenai.Exec answers with.
	reqs := api.ResponseRequests()
	if len(reqs) != 1 || reqs[0].LastUserText() != "hi" || !reqs[0].HasTool("exec_command") || reqs[0].Model != Model {
		t.Errorf("model requests %+v", reqs)
	}
	if u := api.Unexpected(); len(u) != 0 {
		t.Errorf("unexpected requests to the fake: %+v", u)
	}
}
