//go:build !unix

package jsonl

import "os"

// mapFile does not map here: saved indexes are read.
func mapFile(f *os.File, size int64) []byte { return nil }

func unmapFile(b []byte) {}
