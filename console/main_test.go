package console_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/runtimes/scripted"
)

func TestMain(m *testing.M) {
	// The test binary is also the scripted runtime's fake CLI.
	if scripted.IsCLI() {
		scripted.Main()
		return
	}
	goleak.VerifyTestMain(m)
}
