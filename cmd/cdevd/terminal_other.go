//go:build !linux && !darwin

package main

// fdIsTerminal is false where cdevd cannot tell: the token-bearing console
// URL is then never printed.
func fdIsTerminal(uintptr) bool { return false }
