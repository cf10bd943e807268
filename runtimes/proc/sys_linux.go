package proc

import "syscall"

// sysProcAttr puts the child in its own process group and has the kernel
// kill it if the daemon dies without a chance to clean up.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
