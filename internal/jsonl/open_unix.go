//go:build unix

package jsonl

import (
	"errors"
	"os"
	"syscall"
)

// openNonblock opens path read-only with O_NONBLOCK: the open of a FIFO
// then returns at once, with or without a writer. The flag changes nothing
// for a regular file (its reads never wait); Go leaves such a file out of
// its poller either way.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openDir opens path only if it is a directory (O_DIRECTORY: anything
// else fails in the open itself, a FIFO without waiting for a writer).
func openDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, err
}
