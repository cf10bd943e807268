//go:build unix

package jsonl

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps [from, to) of f read-only, returning those bytes and the
// function that unmaps them; ok is false when it cannot (the caller reads
// instead).
func mapFile(f *os.File, from, to int64) (b []byte, unmap func(), ok bool) {
	start := from &^ int64(os.Getpagesize()-1)
	m, err := unix.Mmap(int(f.Fd()), start, int(to-start), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return m[from-start:], func() { _ = unix.Munmap(m) }, true
}
