package registry

import (
	"testing"

	"go.uber.org/goleak"
)

// Background detections must end with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
