package attachments

import (
	"testing"

	"go.uber.org/goleak"
)

// The sweeper is a goroutine: every Store a test opens must end it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
