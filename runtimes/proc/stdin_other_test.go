//go:build !linux

package proc_test

import "golang.org/x/sys/unix"

// fionread is FIONREAD, _IOR('f', 127, int), on macOS and the BSDs; x/sys
// does not export it there.
const fionread = 0x4004667f

// stdinQueued is how many bytes wait unread in our stdin pipe.
func stdinQueued() (int, error) { return unix.IoctlGetInt(0, fionread) }
