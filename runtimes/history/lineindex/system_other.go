//go:build !unix

package lineindex

import "os"

// FileKey is the device and inode of the file fi describes: unknown here,
// so indexes are not persisted.
func FileKey(fi os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// mapSaved does not map here: indexes are not persisted.
func mapSaved(f *os.File, size int64) *mapping { return nil }
