package acp

// The captures' staleness check: every kind Gemini sends, and only those,
// from the Gemini CLI version package.json pins.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiKinds is everything Gemini (the pinned version) sends on its own:
// every session/update kind and every request. The captures must show
// each, and nothing else: a kind this list lacks is one the adapter's
// mapping was never checked against.
var geminiKinds = []string{
	"session/update agent_message_chunk",
	"session/update agent_thought_chunk",
	"session/update tool_call",
	"session/update tool_call_update",
	"session/update user_message_chunk", // only in a session/load replay
	"session/update available_commands_update",
	"session/request_permission",
}

// TestGeminiGoldenCoverage is the captures' staleness check: they hold
// every kind in geminiKinds and no other, they come from the Gemini CLI
// version package.json pins, and every file belongs to a case.
func TestGeminiGoldenCoverage(t *testing.T) {
	pin := pinnedGemini(t)
	cases := map[string]bool{}
	for _, c := range geminiCases {
		cases[c.name] = true
	}
	files, err := filepath.Glob(filepath.Join(goldenDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{} // kind → cases that show it
	for _, f := range files {
		base := filepath.Base(f)
		name := strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".golden")
		if !cases[name] || name == base {
			t.Errorf("%s belongs to no case of geminiCases", f)
			continue
		}
		if !strings.HasSuffix(base, ".jsonl") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		version := ""
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Update struct {
						SessionUpdate string `json:"sessionUpdate"`
					} `json:"update"`
				} `json:"params"`
				Result struct {
					AgentInfo struct {
						Version string `json:"version"`
					} `json:"agentInfo"`
				} `json:"result"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			switch {
			case m.Method == "session/update":
				k := m.Method + " " + m.Params.Update.SessionUpdate
				seen[k] = append(seen[k], name)
			case m.Method != "":
				seen[m.Method] = append(seen[m.Method], name)
			case m.Result.AgentInfo.Version != "":
				version = m.Result.AgentInfo.Version
			}
		}
		if version != pin {
			t.Errorf("%s was captured from Gemini CLI %q, package.json pins %q: recapture with -capture", f, version, pin)
		}
	}
	for _, k := range geminiKinds {
		if len(seen[k]) == 0 {
			t.Errorf("no capture shows %s: add a case that makes Gemini send it", k)
		}
		delete(seen, k)
	}
	for k, in := range seen {
		t.Errorf("%s (in %v) is not in geminiKinds: check how the adapter maps it, then add it", k, in)
	}
}

// pinnedGemini is the @google/gemini-cli version package.json pins.
func pinnedGemini(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	v := pkg.Dependencies["@google/gemini-cli"] + pkg.DevDependencies["@google/gemini-cli"]
	if v == "" {
		t.Fatal("package.json pins no @google/gemini-cli")
	}
	return v
}
