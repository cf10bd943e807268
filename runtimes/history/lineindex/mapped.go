package lineindex

import (
	"os"
	"runtime"
	"sync/atomic"
)

// A saved index is mapped rather than read: a restarted daemon's first
// page of the bench's 100 MB Gemini chat file read its 6.3 MB into a
// fresh buffer, each new page of memory a fault (~20 µs on the VMs we
// measure on). BenchmarkRestartFresh (runtimes/gemini/chats), faults and
// CPU per page, read against mapped: 2,300 against 650 faults, 65–71 ms
// against 16 ms of CPU. Only Gemini's facts are kept as read (its tables
// are read in place); Claude's and Codex's ReadFacts copy what they keep.
//
// The files are the daemon's own (a 0700 folder; replaced by a rename,
// never written in place), so a mapped file never changes under cdevd.
// Another process of the user truncating one would make a read of its
// lost end fault and the daemon crash: that process has the user's
// rights, and could as well kill the daemon, so no recovery is made.

// mapping is a saved index's mapped bytes. Every Index made from it points
// to it (an extended shallow copy too), and so does whatever reads its
// bytes through an index; it is unmapped once none can reach it. Never
// before: a reader may still hold a copy of an index the cache dropped.
type mapping struct{ data []byte }

// liveMappings counts the mappings not yet unmapped (tests).
var liveMappings atomic.Int64

// mapSaved maps the size bytes of f, a saved index, or returns nil where
// it cannot (then the caller reads it).
func mapSaved(f *os.File, size int64) *mapping {
	b := mapFile(f, size)
	if b == nil {
		return nil
	}
	m := &mapping{data: b}
	liveMappings.Add(1)
	runtime.AddCleanup(m, func(b []byte) {
		unmapFile(b)
		liveMappings.Add(-1)
	}, b)
	return m
}
