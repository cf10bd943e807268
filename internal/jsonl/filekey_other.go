//go:build !unix

package jsonl

import "os"

// fileKey is the device and inode of the file fi describes: unknown here,
// so indexes are not persisted.
func fileKey(fi os.FileInfo) (dev, ino uint64, ok bool) {
	if p, isP := fi.(*persistedInfo); isP {
		return p.dev, p.ino, true
	}
	return 0, 0, false
}
