// Package fswatchtest has what tests of code that watches folders share:
// counting the process's open descriptors and inotify instances, to show
// a watch released.
package fswatchtest

import (
	"os"
	"testing"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// OpenFDs is the number of descriptors the process has open. It skips the
// test where /proc/self/fd does not exist (not Linux), saying so.
func OpenFDs(t testing.TB) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open descriptors without /proc/self/fd: %v", err)
	}
	return len(fds)
}

// Released fails t unless the process holds no inotify instance and has
// exactly the fds descriptors it had before (from OpenFDs); when says at
// which point, for the message.
func Released(t testing.TB, fds int, when string) {
	t.Helper()
	if n := fswatch.Instances(); n != 0 {
		t.Fatalf("%d inotify instances %s", n, when)
	}
	if got := OpenFDs(t); got != fds {
		t.Fatalf("%d descriptors %s, %d before", got, when, fds)
	}
}
