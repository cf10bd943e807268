package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdevd/cdevd/workspaces"
)

// serverIDBytes is the size of a server id: 128 random bits, so that two
// machines a client knows never share one.
const serverIDBytes = 16

// ServerIDFile is where this cdevd's id is kept.
func ServerIDFile(home string) string { return filepath.Join(home, "server-id") }

// LoadServerID returns this cdevd's id (initialize's serverInfo.id),
// made on the first start and kept in home: it must survive restarts,
// and new addresses, so that a client that knows several machines keeps
// them apart. It is no secret; it is written atomically all the same, so
// that a crash never leaves a half-written one to be served.
func LoadServerID(home string) (string, error) {
	file := ServerIDFile(home)
	b, err := os.ReadFile(file)
	if err == nil {
		if id := strings.TrimSpace(string(b)); validServerID(id) {
			return id, nil
		}
		// Damaged by hand: a new id is better than none (clients see a
		// new machine, which they can forget).
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read server id: %w", err)
	}
	buf := make([]byte, serverIDBytes)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	id := hex.EncodeToString(buf)
	if err := workspaces.WriteFileAtomic(file, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write server id: %w", err)
	}
	return id, nil
}

func validServerID(id string) bool {
	b, err := hex.DecodeString(id)
	return err == nil && len(b) == serverIDBytes
}

// hostname is the machine's name for serverInfo; "" if the system will
// not tell (clients fall back on the address).
func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
