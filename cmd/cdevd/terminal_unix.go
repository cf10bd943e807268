//go:build linux || darwin

package main

import "golang.org/x/sys/unix"

// fdIsTerminal is golang.org/x/term's IsTerminal, from the x/sys cdevd
// already depends on: only a terminal answers the get-attributes ioctl.
func fdIsTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	return err == nil
}
