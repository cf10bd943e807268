//go:build unix

package chats

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used: on a machine shared with
// other work, a steadier measure than the time a benchmark took.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pageFaults is how many pages the process has touched for the first time
// (minor faults): the fresh memory a fresh daemon's first page pays for,
// which the load does not move. On the VMs we measure on, each costs about
// 20 µs, so that the 6.3 MB a restarted Gemini page read was ~35 ms.
func pageFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
