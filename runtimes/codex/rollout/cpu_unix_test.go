//go:build unix

package rollout

import "syscall"

// cpuNow is the CPU time (user and system, every thread) the process has
// used, in nanoseconds.
func cpuNow() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
