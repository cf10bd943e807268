package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// README.md's steps work: a scratch module that requires and replaces
// github.com/cdevd/cdevd as it says builds its example (offline: the
// module cache and go.sum already hold what cdevd needs).
func TestReadmeExampleBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not in -short")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	steps := regexp.MustCompile(`(?m)^go mod edit (.*) -replace=github.com/cdevd/cdevd=/path/to/cdevd`).FindSubmatch(readme)
	if code == nil || steps == nil {
		t.Fatal("README.md lacks its go mod edit step or its ```go example")
	}
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	app := t.TempDir()
	if err := os.WriteFile(filepath.Join(app, "main.go"), code[1], 0o644); err != nil {
		t.Fatal(err)
	}
	goBin := filepath.Join(runtimeGOROOT(t), "bin", "go")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = app
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("mod", "init", "example.com/app")
	// Offline, the checksums come from the checkout's go.sum (online, the
	// checksum database gives them).
	sums, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "go.sum"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	run(append(append([]string{"mod", "edit"}, strings.Fields(string(steps[1]))...), "-replace=github.com/cdevd/cdevd="+checkout)...)
	run("mod", "tidy")
	run("build", "-o", filepath.Join(app, "app"), ".")
}

func runtimeGOROOT(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go is not on PATH: %v", err)
	}
	return strings.TrimSpace(string(out))
}
