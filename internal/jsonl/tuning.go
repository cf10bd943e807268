package jsonl

import (
	"cmp"
	"time"
)

// Tuning is how a Cache persists its indexes (Cache.Tune).
// A zero field takes its default, as the daemon leaves them all; tests set
// small values, each its own, so that they can run in parallel.
type Tuning struct {
	// PersistMin is the size from which a file's index is persisted:
	// smaller files are scanned again in about a millisecond. Default 1 MB.
	PersistMin int64
	// MaxPersistFiles bounds the directory of persisted indexes (as
	// maxPersistBytes does), the least recently saved dropped first.
	// Default 512.
	MaxPersistFiles int
	// SaveDelay is how long a save that runs apart waits: long enough for
	// the reply of the request that read the file to be written, short
	// enough that a restart soon after finds the index. Default 200 ms.
	SaveDelay time.Duration
}

const maxPersistBytes = 64 << 20

func (t Tuning) persistMin() int64 { return cmp.Or(t.PersistMin, 1<<20) }

func (t Tuning) maxPersistFiles() int { return cmp.Or(t.MaxPersistFiles, 512) }

func (t Tuning) saveDelay() time.Duration { return cmp.Or(t.SaveDelay, 200*time.Millisecond) }
