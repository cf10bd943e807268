//go:build !linux

package jsonl

import (
	"os"
	"path/filepath"
)

// StatAt is os.Lstat of the entry name of the open directory dir.
func StatAt(dir *os.File, name string) (os.FileInfo, error) {
	return os.Lstat(filepath.Join(dir.Name(), name))
}
