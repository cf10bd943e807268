//go:build !unix

package chats

import "time"

// cpuTime is not measured here: benchmarks report 0.
func cpuTime() time.Duration { return 0 }

// pageFaults is not measured here: benchmarks report 0.
func pageFaults() int64 { return 0 }
