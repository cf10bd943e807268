package jsonl

import (
	"cmp"
	"runtime"
	"time"
)

// Tuning is how a Cache scans files and persists their indexes (Cache.Tune).
// A zero field takes its default, as the daemon leaves them all; tests set
// small values, each its own, so that they can run in parallel.
type Tuning struct {
	// ParallelMin is the size from which a full scan is cut into parts
	// scanned at once, at least this much each: below it, goroutines cost
	// more than they save. Default 8 MB.
	ParallelMin int64
	// Parts bounds the parts of one full scan. Default GOMAXPROCS, at most
	// maxParts.
	Parts int
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

const (
	maxParts        = 16
	maxPersistBytes = 64 << 20
)

func (t Tuning) parallelMin() int64 { return cmp.Or(t.ParallelMin, 8<<20) }

func (t Tuning) parts() int64 { return int64(min(cmp.Or(t.Parts, runtime.GOMAXPROCS(0)), maxParts)) }

func (t Tuning) persistMin() int64 { return cmp.Or(t.PersistMin, 1<<20) }

func (t Tuning) maxPersistFiles() int { return cmp.Or(t.MaxPersistFiles, 512) }

func (t Tuning) saveDelay() time.Duration { return cmp.Or(t.SaveDelay, 200*time.Millisecond) }
