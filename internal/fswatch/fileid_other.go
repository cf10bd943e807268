//go:build !unix

package fswatch

// fileID is unknown here: a Gen never trusts its count (Now fails with
// ErrLost), and callers read the directory.
func fileID(string) (dev, ino uint64, ok bool) { return 0, 0, false }
