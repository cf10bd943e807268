package kit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/runtimes"
)

// FilePerSession is the storage layout of CLIs that keep each session in one
// file named after its id, in a folder per working directory (Claude Code,
// the scripted fake). It gives their stores Has, Trash and Watch.
type FilePerSession struct {
	// Folder is where dir's sessions are kept.
	Folder func(dir string) string
	// Ext is the file name's suffix (".jsonl").
	Ext string
	// Watcher watches folders; nil is the daemon's shared one.
	Watcher *fswatch.Watcher
	// Forget, if set, drops whatever the store cached of a trashed file.
	Forget func(path string)
}

// Path is sessionID's file in dir's folder, which must exist; the error
// wraps runtimes.ErrNoSession when it does not. The id is validated first,
// so that it cannot name a file elsewhere.
func (l FilePerSession) Path(dir, sessionID string) (string, error) {
	if err := runtimes.ValidSessionID(sessionID); err != nil {
		return "", err
	}
	p := filepath.Join(l.Folder(dir), sessionID+l.Ext)
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("session %s: %w", sessionID, runtimes.ErrNoSession)
		}
		return "", err
	}
	if !fi.Mode().IsRegular() {
		// A FIFO named like a session, say: no session, and nothing that
		// Trash may move (a copy across file systems would open it, and
		// the open of a FIFO waits for a writer).
		return "", fmt.Errorf("session %s: %w (%s is not a regular file)", sessionID, runtimes.ErrNoSession, p)
	}
	return p, nil
}

// Has reports whether sessionID is stored for dir.
func (l FilePerSession) Has(_ context.Context, dir, sessionID string) bool {
	_, err := l.Path(dir, sessionID)
	return err == nil
}

// Trash moves sessionID's file into bin.
func (l FilePerSession) Trash(_ context.Context, dir, sessionID string, bin runtimes.Bin) error {
	p, err := l.Path(dir, sessionID)
	if err != nil {
		return err
	}
	if err := bin.Put(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("session %s: %w", sessionID, runtimes.ErrNoSession)
		}
		return err
	}
	if l.Forget != nil {
		l.Forget(p)
	}
	return nil
}

// Watch calls changed with the id of each session file written in dir's
// folder, which need not exist yet.
func (l FilePerSession) Watch(dir string, changed func(sessionID string)) (io.Closer, error) {
	return fswatch.Or(l.Watcher).WatchFiles(l.Folder(dir), func(p string) {
		id, ok := strings.CutSuffix(filepath.Base(p), l.Ext)
		if ok && runtimes.ValidSessionID(id) == nil {
			changed(id)
		}
	}, nil)
}
