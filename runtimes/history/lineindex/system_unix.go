//go:build unix

package lineindex

import (
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// FileKey is the device and inode of the file fi describes (from os.Stat,
// os.Lstat); ok is false where they are unknown.
func FileKey(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, isSt := fi.Sys().(*syscall.Stat_t)
	if !isSt {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // Dev is int32 on darwin
}

// mapSaved maps f, a saved index of size bytes (see mapping); nil if it cannot.
func mapSaved(f *os.File, size int64) *mapping {
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil || len(b) != int(size) {
		return nil
	}
	m := &mapping{data: b}
	liveMappings.Add(1)
	runtime.AddCleanup(m, func(b []byte) {
		unix.Munmap(b)
		liveMappings.Add(-1)
	}, b)
	return m
}
