package openrpc

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the generated files from the Go types")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
