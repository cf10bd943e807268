package runtimes

import (
	"errors"
	"fmt"
)

// ErrBadSessionID is wrapped by ValidSessionID's errors, so that callers can
// report an invalid id apart from a missing session.
var ErrBadSessionID = errors.New("invalid session id")

// maxSessionIDLen bounds a session id, which adapters use in file names.
const maxSessionIDLen = 200

// ValidSessionID checks that id is a plain id: 1 to 200 ASCII letters,
// digits, '-', '_' and '.', beginning with a letter or a digit. Every CLI's
// ids fit (Claude's are UUIDs). Adapters use ids in file names and on
// command lines, so this keeps an id from naming a path ("..", a separator,
// NUL) or a hidden file, and from ever being read as a flag: a transcript
// file named "--permission-mode=bypassPermissions.jsonl" must not become
// "--resume --permission-mode=bypassPermissions". The error wraps
// ErrBadSessionID.
func ValidSessionID(id string) error {
	if len(id) > maxSessionIDLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrBadSessionID, maxSessionIDLen)
	}
	if id == "" {
		return fmt.Errorf("%w: empty", ErrBadSessionID)
	}
	if !alnum(id[0]) {
		return fmt.Errorf("%w: %q does not begin with a letter or a digit", ErrBadSessionID, id)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Errorf("%w: %q holds %q; only letters, digits, '-', '_' and '.' may", ErrBadSessionID, id, rune(c))
		}
	}
	return nil
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
