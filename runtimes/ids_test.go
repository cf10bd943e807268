package runtimes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/runtimes"
)

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"5f0c6f6e-8a8e-4a57-9d2b-3c1f0d8e2a11", "s1", "x..y", "a_b.c-d", "9", strings.Repeat("a", 200)} {
		if err := runtimes.ValidSessionID(id); err != nil {
			t.Errorf("ValidSessionID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, "a\x00b", strings.Repeat("a", 201),
		// Read as flags on a command line.
		"-", "--", "-r", "--permission-mode=bypassPermissions", "--resume",
		// Not plain: hidden files, blanks, shell and option syntax, non-ASCII.
		".hidden", "_x", "a b", " a", "a\n", "a=b", "a;b", "$(x)", "a*", "é", "a\u202eb"} {
		if err := runtimes.ValidSessionID(id); !errors.Is(err, runtimes.ErrBadSessionID) {
			t.Errorf("ValidSessionID(%q) = %v, want ErrBadSessionID", id, err)
		}
	}
}

func FuzzValidSessionID(f *testing.F) {
	for _, s := range []string{"s1", "-x", "--permission-mode=plan", "a/b", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if runtimes.ValidSessionID(id) != nil {
			return
		}
		if strings.HasPrefix(id, "-") || strings.HasPrefix(id, ".") || strings.ContainsAny(id, "/\\\x00= ") || len(id) > 200 {
			t.Errorf("accepted %q", id)
		}
	})
}
