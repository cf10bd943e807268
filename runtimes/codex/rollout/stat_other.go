//go:build !linux

package rollout

import (
	"os"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// statAt is jsonl.StatAt; the identity is not known here, so List reads
// the head of every rollout of another workspace that changed.
func statAt(dir *os.File, name string) (os.FileInfo, fileID, error) {
	fi, err := jsonl.StatAt(dir, name)
	return fi, fileID{}, err
}
