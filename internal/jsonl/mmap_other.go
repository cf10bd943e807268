//go:build !unix

package jsonl

import "os"

// mapFile cannot map files here: scans read them.
func mapFile(f *os.File, from, to int64) (b []byte, unmap func(), ok bool) {
	return nil, nil, false
}
