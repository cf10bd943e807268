// Package scripts holds the repository's scripts; its test checks the
// Makefile's README commands with fake tools.
package scripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeEnv is a copy of the Makefile and package-lock.json in a temp dir,
// with fake npm, npx, go, gofmt and chromium first on PATH; each records
// its calls in calls.log. The fake npm ci does what the real one does to
// node_modules: deletes it and makes it again.
type makeEnv struct{ dir, log string }

func newMakeEnv(t *testing.T) *makeEnv {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	e := &makeEnv{dir: t.TempDir()}
	bin := filepath.Join(e.dir, "fakebin")
	e.log = filepath.Join(e.dir, "calls.log")
	for _, f := range []string{"Makefile", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fakes := map[string]string{
		"npm": `if [ "$1" = ci ]; then rm -rf node_modules && mkdir -p node_modules/.bin; fi`,
		"go":  `if [ "$1" = build ]; then mkdir -p "$(dirname "$3")" && printf '#!/bin/sh\necho "cdevd $*" >> "%s"\n' "$LOG" > "$3" && chmod +x "$3"; fi`,
		"npx": "", "gofmt": "", "chromium": "",
	}
	for name, body := range fakes {
		script := fmt.Sprintf("#!/bin/sh\nLOG=%q\necho \"%s $*\" >> \"$LOG\"\n%s\n", e.log, name, body)
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	for _, k := range []string{"GO", "NPM", "ARGS", "MAKEFLAGS", "MFLAGS"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	return e
}

// make runs the targets and returns the calls the fakes logged meanwhile.
func (e *makeEnv) make(t *testing.T, targets ...string) []string {
	t.Helper()
	_ = os.Remove(e.log)
	cmd := exec.Command("make", append([]string{"--no-print-directory", "GO=go", "NPM=npm"}, targets...)...)
	cmd.Dir = e.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(targets, " "), err, out)
	}
	data, _ := os.ReadFile(e.log)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func npmCalls(calls []string) []string {
	var out []string
	for _, c := range calls {
		if strings.HasPrefix(c, "npm ") {
			out = append(out, c)
		}
	}
	return out
}

// The README's two commands never collide: npm ci, which deletes
// node_modules and with it the CLIs a running `make serve` uses, runs on a
// fresh clone and when package-lock.json changes, and not otherwise:
// `make test` beside a running `make serve` leaves node_modules alone.
func TestMakeInstallsNodeModulesOnlyWhenNeeded(t *testing.T) {
	e := newMakeEnv(t)
	want := []string{"npm ci --no-audit --no-fund"}

	calls := e.make(t, "test") // a fresh clone
	if got := npmCalls(calls); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("make test on a fresh clone ran %q, want %q", got, want)
	}
	if !strings.Contains(strings.Join(calls, "\n"), "go test -race") {
		t.Errorf("make test did not run the tests: %q", calls)
	}

	calls = e.make(t, "serve")
	if got := npmCalls(calls); len(got) != 0 {
		t.Errorf("make serve after make test ran %q", got)
	}
	if !strings.Contains(strings.Join(calls, "\n"), "cdevd serve --workspace .") {
		t.Errorf("make serve did not serve: %q", calls)
	}
	if got := npmCalls(e.make(t, "test")); len(got) != 0 {
		t.Errorf("make test after make serve ran %q", got)
	}

	// A changed lock is installed again.
	lock := filepath.Join(e.dir, "package-lock.json")
	f, err := os.OpenFile(lock, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("\n")
	f.Close()
	if got := npmCalls(e.make(t, "test")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("make test after the lock changed ran %q, want %q", got, want)
	}
	if got := npmCalls(e.make(t, "install")); len(got) != 0 {
		t.Errorf("make install right after ran %q", got)
	}

	// An install that did not finish leaves no stamp: installed again.
	if err := os.RemoveAll(filepath.Join(e.dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.dir, "node_modules", "half"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := npmCalls(e.make(t, "serve")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("make serve over a half-installed node_modules ran %q, want %q", got, want)
	}
}
