//go:build unix

package transport

import "syscall"

// inputProbe returns a RawConn.Read callback that reports whether the
// socket has input (or an end or error for the reader to find), without
// taking any: it peeks at one byte into buf.
func inputProbe(buf *[1]byte) func(fd uintptr) bool {
	return func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return err != syscall.EAGAIN
	}
}
