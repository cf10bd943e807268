package sessions

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace is rename(2) that fails with EEXIST instead of replacing
// dst; errors.ErrUnsupported where the kernel or file system lacks it.
func renameNoReplace(src, dst string) error {
	err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL):
		return errors.ErrUnsupported
	case errors.Is(err, unix.EXDEV):
		return errors.ErrUnsupported // the link fallback copies across file systems
	}
	return &os.LinkError{Op: "renameat2", Old: src, New: dst, Err: err}
}
