//go:build unix

package jsonl

import (
	"os"
	"syscall"
)

// fileKey is the device and inode of the file fi describes.
func fileKey(fi os.FileInfo) (dev, ino uint64, ok bool) {
	if p, isP := fi.(*persistedInfo); isP {
		return p.dev, p.ino, true
	}
	st, isSt := fi.Sys().(*syscall.Stat_t)
	if !isSt {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // Dev is int32 on darwin
}
