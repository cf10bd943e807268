//go:build unix

package fswatch

import "syscall"

// fileID returns the device and inode of path, which tell one directory
// from another later at the same path.
func fileID(path string) (dev, ino uint64, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // Dev's type varies by system
}
