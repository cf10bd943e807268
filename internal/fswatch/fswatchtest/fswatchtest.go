// Package fswatchtest has what tests of code that watches folders share:
// counting the process's open descriptors, to show a watch released.
package fswatchtest

import (
	"os"
	"testing"
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
