package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// credentialVars are the variables that could let a CLI answer: unset for
// every doctor test, so that the machine's own never leak in.
var credentialVars = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR",
	"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME",
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA",
	"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"}

// hermetic gives doctor the pinned CLIs, a fresh HOME and CDEVD_HOME, the
// harnesses' proxies and no credentials; it returns HOME.
func hermetic(t *testing.T) string {
	t.Helper()
	for _, k := range credentialVars {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for _, kv := range clitest.Env(t) { // HOME, TMPDIR, proxies
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("CDEVD_HOME", t.TempDir())
	t.Setenv("CLAUDE_BIN", clitest.Bin(t, "CLAUDE_BIN", "claude"))
	t.Setenv("CODEX_BIN", codextest.Bin(t))
	t.Setenv("GEMINI_BIN", geminitest.Bin(t))
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	t.Setenv("DISABLE_TELEMETRY", "1")
	t.Setenv("DISABLE_AUTOUPDATER", "1")
	t.Setenv("GEMINI_CLI_NO_RELAUNCH", "true")
	return os.Getenv("HOME")
}

func doctorJSON(t *testing.T) (doctorReport, map[string]doctorRuntime, string, int) {
	t.Helper()
	out, errs, code := runCmd(t, nil, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json printed no report: %v\n%s\n%s", err, out, errs)
	}
	by := map[string]doctorRuntime{}
	for _, r := range rep.Runtimes {
		by[r.ID] = r
	}
	return rep, by, errs, code
}

// With the real CLIs installed and no credentials at all, doctor finds
// each, says none can answer and how to fix it, and exits 1 naming them.
func TestDoctorNoCredentials(t *testing.T) {
	hermetic(t)
	_, by, errs, code := doctorJSON(t)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	fixes := map[string]string{"claude": "run `claude` once in a terminal and log in",
		"codex": "run `codex login`", "gemini": "set GEMINI_API_KEY"}
	for id, fix := range fixes {
		r := by[id]
		if !r.Found || r.Status != "disabled" || r.Login != "loggedOut" || !strings.Contains(r.Reason, fix) {
			t.Errorf("%s: %+v", id, r)
		}
		if !strings.Contains(errs, id+": "+r.Reason) {
			t.Errorf("stderr does not say why %s cannot be used:\n%s", id, errs)
		}
		t.Logf("%s: %s", id, r.Reason)
	}

	table, _, code := runCmd(t, nil, "doctor")
	if code != 1 || !strings.Contains(table, "LOGIN") || !strings.Contains(table, "loggedOut") {
		t.Errorf("table (exit %d):\n%s", code, table)
	}
}

// With each CLI's credentials as the harnesses give them (an API key and a
// fake API on loopback), every runtime is active and doctor exits 0; no
// model request is made.
func TestDoctorWithCredentials(t *testing.T) {
	home := hermetic(t)
	anthropic, openai, gemini := fakeanthropic.New(t), fakeopenai.New(t), fakegemini.New(t)
	t.Setenv("ANTHROPIC_API_KEY", "test")
	t.Setenv("ANTHROPIC_BASE_URL", anthropic.URL())
	// Codex: the harness's config.toml (a provider reading OPENAI_API_KEY).
	codexEnv := codextest.Env(t, openai.BaseURL())
	t.Setenv("CODEX_HOME", filepath.Join(clitest.Home(codexEnv), ".codex"))
	t.Setenv("OPENAI_API_KEY", codextest.APIKey)
	// Gemini: the harness's settings.json and key.
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(geminitest.Settings)
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GEMINI_API_KEY", geminitest.APIKey)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", gemini.URL())

	_, by, errs, code := doctorJSON(t)
	if code != 0 {
		t.Errorf("exit %d: %s", code, errs)
	}
	for _, id := range []string{"claude", "codex", "gemini"} {
		if r := by[id]; r.Status != "active" || r.Login != "loggedIn" || r.Reason != "" {
			t.Errorf("%s: %+v", id, r)
		}
	}
	if n := len(anthropic.Requests()) + len(openai.Requests()) + len(gemini.Requests()); n != 0 {
		t.Errorf("doctor made %d model requests", n)
	}
}

// A mistake in the configuration file: --json still prints JSON, with the
// error, and doctor exits 1.
func TestDoctorJSONOnConfigError(t *testing.T) {
	h := t.TempDir()
	if err := os.WriteFile(filepath.Join(h, "config.toml"), []byte("[[acp_agent]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCmd(t, map[string]string{"CDEVD_HOME": h}, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Error == "" || code != 1 || errs == "" {
		t.Fatalf("exit %d, report %+v (%v)\nstdout %s\nstderr %s", code, rep, err, out, errs)
	}
	if rep.StateDir != h || rep.Config != filepath.Join(h, "config.toml") || rep.Runtimes == nil {
		t.Errorf("report %+v", rep)
	}
}

// cdevd built in a repository (./bin/cdevd) finds the CLIs `make install`
// put in its node_modules/.bin after PATH's own, for serve and doctor alike
// (both build their adapters with adapters()), and only once.
func TestRepoCLIsFoundByDoctor(t *testing.T) {
	hermetic(t)
	repo := t.TempDir()
	bin := filepath.Join(repo, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.Getenv("CLAUDE_BIN"), filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	selfPath = func() (string, error) { return filepath.Join(repo, "bin", "cdevd"), nil }
	t.Cleanup(func() { selfPath = os.Executable })
	t.Setenv("CLAUDE_BIN", "")
	os.Unsetenv("CLAUDE_BIN")
	t.Setenv("PATH", "/usr/bin:/bin")

	_, by, _, _ := doctorJSON(t)
	if c := by["claude"]; !c.Found || c.Path != filepath.Join(bin, "claude") {
		t.Errorf("claude from the repository's node_modules/.bin: %+v", c)
	}
	if got, want := os.Getenv("PATH"), "/usr/bin:/bin"+string(os.PathListSeparator)+bin; got != want {
		t.Errorf("PATH %q, want %q", got, want)
	}
	addRepoCLIs()
	if got := os.Getenv("PATH"); strings.Count(got, bin) != 1 {
		t.Errorf("added twice: %q", got)
	}

	selfPath = func() (string, error) { return filepath.Join(repo, "elsewhere", "cdevd"), nil }
	if dir := addRepoCLIs(); dir != "" {
		t.Errorf("not run from a repository's bin/, added %q", dir)
	}
}
