//go:build unix

package jsonl

import (
	"os"
	"syscall"
)

// FileKey is the device and inode of the file fi describes (from os.Stat,
// os.Lstat); ok is false where they are unknown.
func FileKey(fi os.FileInfo) (dev, ino uint64, ok bool) {
	if p, isP := fi.(*persistedInfo); isP {
		return p.dev, p.ino, true
	}
	st, isSt := fi.Sys().(*syscall.Stat_t)
	if !isSt {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // Dev is int32 on darwin
}
