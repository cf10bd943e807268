package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/cmd/cdevd/internal/bench"
	"github.com/cdevd/cdevd/internal/clitest"
)

// TestBenchQuick runs `cdevd bench -quick` end to end, as a separate
// process that serves cdevd and the echo server from this binary, and checks
// that the table has a row with numbers for every figure, the transcript
// figures once for each of Claude, Codex and Gemini. It asserts
// nothing about the numbers: speed is for the bench itself. -quick runs one
// repetition of each figure: what is under test is every figure's plumbing
// (six of them restart the daemon), not a median.
func TestBenchQuick(t *testing.T) {
	cmd := exec.Command(os.Args[0], "bench", "-quick")
	// The children exit several times (daemon restarts); a -race binary
	// would sleep a second at each exit.
	cmd.Env = append(os.Environ(), "CDEVD_TEST_MAIN=1", "CLAUDE_BIN="+clitest.Bin(t, "CLAUDE_BIN", "claude"),
		"CODEX_BIN="+clitest.Bin(t, "CODEX_BIN", "codex"), "GEMINI_BIN="+clitest.Bin(t, "GEMINI_BIN", "gemini"),
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cdevd bench -quick: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	if len(lines) != 1+len(bench.Figures(builtinInfos())) || !strings.HasPrefix(lines[0], "FIGURE") {
		t.Fatalf("want a header and %d rows, got:\n%s", len(bench.Figures(builtinInfos())), &stdout)
	}
	num := `\d+(\.\d+)? (µs|ms|s|KB)`
	value := regexp.MustCompile(`\s{2,}` + num + `( / ` + num + `)?\s{2,}`)
	ratio := regexp.MustCompile(`\s{2,}\d+\.\d\d×\s{2,}`)
	verdict := regexp.MustCompile(`\s(yes|no|-)$`)
	ratios, runtimes := 0, map[string]int{}
	for _, l := range lines[1:] {
		if name, _, ok := strings.Cut(l, ": "); ok {
			runtimes[name]++
		}
		if !value.MatchString(l) || !verdict.MatchString(l) {
			t.Errorf("row without a measured value or a verdict: %q", l)
		}
		if ratio.MatchString(l) {
			ratios++
		}
	}
	if runtimes["Claude"] != 6 || runtimes["Codex"] != 6 || runtimes["Gemini"] != 6 {
		t.Errorf("transcript rows by runtime %v, want 6 each:\n%s", runtimes, &stdout)
	}
	// Every figure but the three event figures has a baseline.
	if want := len(bench.Figures(builtinInfos())) - 3; ratios != want {
		t.Errorf("%d rows with a ratio to their baseline, want %d:\n%s", ratios, want, &stdout)
	}
}
