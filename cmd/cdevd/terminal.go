package main

import (
	"io"
	"os"
)

// isTerminal says whether w is a terminal, where someone reads what is
// written now and it is not kept. Anywhere else (a pipe, a file, the
// journal, launchd's log file) what serve prints is stored, and read again,
// so nothing long-lived may go there. Tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fdIsTerminal(f.Fd())
}
