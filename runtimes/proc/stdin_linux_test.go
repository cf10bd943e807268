package proc_test

import "golang.org/x/sys/unix"

// stdinQueued is how many bytes wait unread in our stdin pipe.
func stdinQueued() (int, error) { return unix.IoctlGetInt(0, unix.TIOCINQ) }
