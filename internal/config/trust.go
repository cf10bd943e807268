package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// checkTrusted refuses a configuration file that someone other than the
// user running cdevd could have written: the file names the commands cdevd
// runs, so whoever can change it runs code as this user. info is from
// os.Stat, which follows a symbolic link: what is checked is the file read.
// Like the state directory and the token file (daemon/home.go), an unsafe
// file is refused, not repaired: only the user can tell whether it was
// changed.
func checkTrusted(path string, info fs.FileInfo) error {
	q := ShellQuote(path)
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("config: %s belongs to another user (uid %d), who could make cdevd run any command; "+
			"make it a file of your own: check it, then: cp %s %s.new && mv %s.new %s && chmod 600 %s",
			described(path), st.Uid, q, q, q, q, q)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("config: %s is writable by other users (mode %04o), who could make cdevd run any command; "+
			"fix it with: chmod 600 %s (then check what it declares)", described(path), perm, q)
	}
	return nil
}

// described names path, and the file it links to when it is a link: the
// mode and owner in the error are the target's.
func described(path string) string {
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		return fmt.Sprintf("%s (a link to %s)", path, target)
	}
	return path
}

// ShellQuote quotes a path for a command the user can paste into a shell:
// the fixes cdevd's refusals print (here and in daemon/home.go).
func ShellQuote(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
