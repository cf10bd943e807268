package usage

import (
	"testing"

	"go.uber.org/goleak"
)

// Limits runs a writer goroutine: Close must end it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
