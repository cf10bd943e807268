package runtimes

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadSessionID is wrapped by ValidSessionID's errors, so that callers can
// report an invalid id apart from a missing session.
var ErrBadSessionID = errors.New("invalid session id")

// maxSessionIDLen bounds a session id, which adapters use in file names.
const maxSessionIDLen = 200

// ValidSessionID checks that id is safe as a file name inside a runtime's
// transcript folder: not empty, "." or "..", without a path separator or
// NUL, at most 200 bytes. The error wraps ErrBadSessionID.
func ValidSessionID(id string) error {
	if len(id) > maxSessionIDLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrBadSessionID, maxSessionIDLen)
	}
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00") {
		return fmt.Errorf("%w: %q", ErrBadSessionID, id)
	}
	return nil
}
