//go:build unix

package rollout

import (
	"os"
	"syscall"
)

// identity is the device and inode of the file fi describes.
func identity(fi os.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), ok: true} //nolint:unconvert // Dev is int32 on darwin
}
