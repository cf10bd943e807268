//go:build !unix

package jsonl

import "os"

// openNonblock is os.Open: systems without FIFOs in the file system have
// nothing to block on.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }
