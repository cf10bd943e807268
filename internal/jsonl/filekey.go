package jsonl

import "os"

// FileKey is the device and inode of the file fi describes (fi from
// os.Stat, os.Lstat or StatAt); ok is false where they are unknown. Two
// versions with the same key are the same file, written to in place.
func FileKey(fi os.FileInfo) (dev, ino uint64, ok bool) { return fileKey(fi) }
