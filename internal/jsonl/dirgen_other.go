//go:build !linux

package jsonl

// DirGen would return the generation of directory dir's contents (see the
// Linux version); elsewhere it is unknown, and callers read the directory.
func DirGen(dir string) (gen uint64, ok bool) { return 0, false }
