//go:build unix

package jsonl

import (
	"os"

	"golang.org/x/sys/unix"
)

func mapFile(f *os.File, size int64) []byte {
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil || len(b) != int(size) {
		return nil
	}
	return b
}

func unmapFile(b []byte) { unix.Munmap(b) }
