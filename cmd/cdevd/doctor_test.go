package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
)

// doctor --json states the facts the table shows, one runtime per entry:
// a runtime found (a declared agent, with its version) and one missing
// (with the reason), and where the state and configuration live.
func TestDoctorJSON(t *testing.T) {
	home := t.TempDir()
	var env []string
	for _, kv := range acpfake.Env(acpfake.Options{Name: "fake-agent", Version: "2.3.4"}) {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, fmt.Sprintf("%s = %s", k, strconv.Quote(v)))
	}
	conf := fmt.Sprintf("[[acp_agent]]\nid = \"fakeacp\"\ncommand = %q\nenv = { %s }\n", os.Args[0], strings.Join(env, ", "))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"CDEVD_HOME": home, "CLAUDE_BIN": "/nonexistent/claude",
		"CODEX_BIN": "/nonexistent/codex", "GEMINI_BIN": "/nonexistent/gemini"}
	out, errs, code := runCmd(t, vars, "doctor", "--json")
	if code != 1 || !strings.Contains(errs, "claude: claude not found") {
		t.Fatalf("doctor --json with claude missing: exit %d, %s", code, errs)
	}
	var rep doctorReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("not JSON of the report: %v\n%s", err, out)
	}
	byID := map[string]doctorRuntime{}
	for _, r := range rep.Runtimes {
		byID[r.ID] = r
	}
	if c := byID["claude"]; c.Found || c.Status != "disabled" || c.Reason == "" || c.Path != "" {
		t.Errorf("missing claude: %+v", c)
	}
	if f := byID["fakeacp"]; !f.Found || f.Status != "preview" || f.Version != "2.3.4" || f.Path != os.Args[0] || f.Reason != "" {
		t.Errorf("declared agent: %+v", f)
	}
	if rep.StateDir != home || rep.Config != filepath.Join(home, "config.toml") {
		t.Errorf("state %q, config %q", rep.StateDir, rep.Config)
	}

	// The table has one row per entry, in the same order.
	table, _, _ := runCmd(t, vars, "doctor")
	lines := strings.Split(table, "\n")
	for i, r := range rep.Runtimes {
		if f := strings.Fields(lines[1+i]); len(f) < 5 || f[0] != r.ID || f[1] != strconv.FormatBool(r.Found) || f[4] != r.Status {
			t.Errorf("table row %d %q, JSON %+v", i, lines[1+i], r)
		}
	}
}
