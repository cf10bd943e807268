//go:build !unix

package transport

// inputProbe is nil where no non-blocking peek is at hand: an idle reader
// then waits in the library.
func inputProbe(*[1]byte) func(fd uintptr) bool { return nil }
