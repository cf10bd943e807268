package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cdevd/cdevd/internal/config"
	"github.com/cdevd/cdevd/workspaces"
)

// MinTokenLength is the shortest token cdevd serves with. The generated
// one is 64 hex characters (256 bits); a CDEVD_TOKEN shorter than this
// could be guessed by whoever can reach the port.
const MinTokenLength = 32

// PrepareHome creates the state directory (mode 0700) or checks the one
// there: it holds the token and the list of directories agents may run
// in, so nobody else may be able to replace what is in it. An unsafe
// directory is refused, not repaired: whoever could write to it may
// already have changed its files, and only the user can judge that.
func PrepareHome(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	fi, err := os.Stat(home)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state directory %s is not a directory", home)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("state directory %s belongs to another user (uid %d); use a directory of your own (set CDEVD_HOME)", home, st.Uid)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("state directory %s is writable by other users (mode %04o): they could replace its token "+
			"or its workspace list; fix it with: chmod 700 %s (then check its files, and run `cdevd token --rotate`)",
			home, perm, config.ShellQuote(home))
	}
	return nil
}

// LoadToken returns the token to require: override if set (surrounding
// spaces trimmed, as they are from a presented token), else the one stored
// in home/token, created (256 random bits, mode 0600) if missing. A short
// override, and a stored token other users can read, are refused.
func LoadToken(home, override string) (token, source string, err error) {
	if override != "" {
		t := strings.TrimSpace(override)
		if len(t) < MinTokenLength {
			return "", "", fmt.Errorf("CDEVD_TOKEN is %d characters long; use at least %d random ones "+
				"(e.g. `openssl rand -hex 32`), or unset it to use the generated token", len(t), MinTokenLength)
		}
		return t, "the CDEVD_TOKEN environment variable", nil
	}
	file := TokenFile(home)
	if fi, err := os.Stat(file); err == nil {
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			return "", "", fmt.Errorf("token file %s is readable by other users (mode %04o), so it may have been "+
				"read: replace it with: cdevd token --rotate (or, to keep it: chmod 600 %s)", file, perm, config.ShellQuote(file))
		}
	}
	b, err := os.ReadFile(file)
	if err == nil && len(strings.TrimSpace(string(b))) >= MinTokenLength {
		return strings.TrimSpace(string(b)), file, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("read token: %w", err)
	}
	t, err := RotateToken(home)
	return t, file, err
}

// RotateToken writes a new random token and returns it.
func RotateToken(home string) (string, error) {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	t := hex.EncodeToString(buf)
	if err := workspaces.WriteFileAtomic(TokenFile(home), []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return t, nil
}

// TokenFile is where the token is kept.
func TokenFile(home string) string { return filepath.Join(home, "token") }

// DeviceFile is where the paired devices are kept (with their tokens'
// hashes only).
func DeviceFile(home string) string { return filepath.Join(home, "devices.json") }

// checkOrigins refuses --allow-origin values that cannot be what the user
// meant. "null" is the Origin of sandboxed iframes, file:// pages and
// data: URLs: any web page can make one, so allowing it allows them all.
func checkOrigins(origins []string) error {
	for _, o := range origins {
		if strings.EqualFold(o, "null") {
			return errors.New(`--allow-origin null would let any web page connect (sandboxed iframes, file:// pages ` +
				`and data: URLs all send "Origin: null"); serve the page from an http(s) origin and allow that one`)
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" {
			return fmt.Errorf("--allow-origin %q is not an origin; give scheme://host[:port], e.g. https://app.example", o)
		}
	}
	return nil
}
