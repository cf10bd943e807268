package openrpc

import (
	"flag"
	"testing"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/runtimes/scripted"
)

var update = flag.Bool("update", false, "rewrite the generated files from the Go types")

func TestMain(m *testing.M) {
	// The live example test runs the scripted runtime, whose CLI is this
	// test binary.
	if scripted.IsCLI() {
		scripted.Main()
		return
	}
	goleak.VerifyTestMain(m)
}
