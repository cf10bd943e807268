//go:build !unix

package files

const nonblock = 0
