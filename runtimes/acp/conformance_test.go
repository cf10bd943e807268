package acp

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp/acpfake"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
)

// TestConformance runs the adapter conformance suite on a declared agent
// (the fake ACP agent), as the generic runtime runs any.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Harness{
		New: func(t *testing.T) adaptertest.Env {
			mark := "CDEVD_CONFORMANCE_MARK=" + t.Name()
			spec := fakeSpec(t, acpfake.Options{LoadSession: true})
			spec.Env = append(spec.Env, mark)
			spec.Logger = zaptest.NewLogger(t)
			return adaptertest.Env{Adapter: New(spec), Dir: workspace(t), Mark: mark}
		},
		Missing: func(t *testing.T) runtimes.Adapter {
			return New(Spec{ID: "fake", Command: filepath.Join(t.TempDir(), "missing"), Env: os.Environ()})
		},
		Text:       "hello",
		Slow:       "SLOW 40",
		Permission: "TOOL touch conformance.txt",
	})
}
