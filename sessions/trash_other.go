//go:build !linux

package sessions

import "errors"

// renameNoReplace has no portable form: the caller links instead.
func renameNoReplace(src, dst string) error { return errors.ErrUnsupported }
