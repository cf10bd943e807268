package sessions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes"
)

// trashSeq makes trash names unique within this process even when the clock
// does not move between two deletes.
var trashSeq atomic.Uint64

// trashTries bounds the names tried when each one is taken (by another
// cdevd sharing the directory, say); in practice the first one is free.
const trashTries = 100

// bin is the trash of one runtime's sessions of one workspace, which the
// runtime's Transcripts.Trash moves a session's files into.
func (e *Engine) bin(agent, workspaceID string) runtimes.Bin {
	return trashBin(filepath.Join(e.cfg.TrashDir, agent, workspaceID))
}

// trashBin is a trash directory. Deleting never destroys: the name is
// unique (nanosecond time and a counter) and the move never replaces a file
// already there, so two deletes of one session id (recreated in between)
// leave two files.
type trashBin string

// Put moves the file at path into the bin, keeping it recoverable.
func (b trashBin) Put(path string) error {
	dir := string(b)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for range trashTries {
		dst := filepath.Join(dir, fmt.Sprintf("%s-%d-%s",
			time.Now().UTC().Format("20060102T150405.000000000Z"), trashSeq.Add(1), filepath.Base(path)))
		err := moveNoReplace(path, dst)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return err
	}
	return fmt.Errorf("no free name in %s after %d tries", dir, trashTries)
}

// moveNoReplace renames src to dst, failing with fs.ErrExist rather than
// replacing a file at dst.
func moveNoReplace(src, dst string) error {
	err := renameNoReplace(src, dst)
	if !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	// No renameat2 here (another OS, an old kernel, or a file system
	// without RENAME_NOREPLACE): a hard link fails on an existing name too.
	err = os.Link(src, dst)
	if errors.Is(err, syscall.EXDEV) {
		return copyNoReplace(src, dst)
	}
	if err != nil {
		return err
	}
	return os.Remove(src)
}

// copyNoReplace moves src to another file system: a complete copy is
// linked in place (failing if dst exists), then src is removed.
func copyNoReplace(src, dst string) error {
	in, err := jsonl.OpenRegular(src) // never a FIFO: its open would wait for a writer
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".trash-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), dst); err != nil {
		return err
	}
	return os.Remove(src)
}
