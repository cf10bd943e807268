package scripted

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
)

// The scripted fake passes the adapter conformance suite in both of its id
// modes: client-chosen ids (like Claude) and CLI-chosen ones (like Codex).
func TestConformance(t *testing.T) {
	adaptertest.Run(t, conformanceHarness(false))
}

func TestConformanceCLIChoosesIDs(t *testing.T) {
	adaptertest.Run(t, conformanceHarness(true))
}

func conformanceHarness(cliChoosesIDs bool) adaptertest.Harness {
	return adaptertest.Harness{
		New: func(t *testing.T) adaptertest.Env {
			// The fake inherits this process's environment: the mark set
			// here finds every fake CLI the subtest starts.
			mark := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
			t.Setenv(conformanceMark, mark)
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			a := New(Config{Bin: os.Args[0], StateDir: t.TempDir(), CLIChoosesIDs: cliChoosesIDs})
			return adaptertest.Env{Adapter: a, Dir: dir, Mark: conformanceMark + "=" + mark}
		},
		Missing: func(t *testing.T) runtimes.Adapter {
			return New(Config{Bin: filepath.Join(t.TempDir(), "missing")})
		},
		Text:       "hello",
		Slow:       scriptOf(`{"delta":"one "}`, `{"sleep_ms":5000}`, `{"delta":"two"}`, `{"message":"one two"}`),
		Permission: scriptOf(`{"permission":{"tool":"Bash","target":"touch x","kind":"bash_command"}}`),
		Question:   scriptOf(`{"question":{"text":"Pick one","options":["red","blue"]}}`),
	}
}

const conformanceMark = "CDEVD_CONFORMANCE_MARK"
