package runtimes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/runtimes"
)

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"5f0c6f6e-8a8e-4a57-9d2b-3c1f0d8e2a11", "s1", "x..y", ".hidden", strings.Repeat("a", 200)} {
		if err := runtimes.ValidSessionID(id); err != nil {
			t.Errorf("ValidSessionID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, "a\x00b", strings.Repeat("a", 201)} {
		if err := runtimes.ValidSessionID(id); !errors.Is(err, runtimes.ErrBadSessionID) {
			t.Errorf("ValidSessionID(%q) = %v, want ErrBadSessionID", id, err)
		}
	}
}
