//go:build unix

package jsonl

import (
	"os"
	"syscall"
)

// openNonblock opens path read-only with O_NONBLOCK: the open of a FIFO
// then returns at once, with or without a writer. The flag changes nothing
// for a regular file or a directory (their reads never wait); Go leaves such
// a file out of its poller either way.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
