package proc

import "syscall"

// sysProcAttr puts the child in its own process group and has the kernel
// kill it if the daemon dies without a chance to clean up. The kernel ties
// Pdeathsig to the thread that forked; the Go runtime does not retire its
// threads (nothing here locks one to a goroutine), so in practice that is
// the life of the daemon.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
