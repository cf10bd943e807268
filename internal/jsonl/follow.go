package jsonl

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// Follow follows the JSON Lines file at path from its current end (the
// start of a torn last line), like tail -F: it calls onLine, one call at a
// time and in file order, with the offset and content (valid during the
// call) of each complete line appended, holding a partial last line until
// its newline arrives, until ctx ends or the returned Closer is closed. It
// watches the directory, not the file, so that it sees the file created,
// removed or replaced (then read from its start); when the file shrinks, it
// goes on from the new end. onLine must not block for long, nor call Close.
// Nothing is debounced. w is the watcher (nil: the process's shared one); a
// watch the system refuses is an *fswatch.Error, and the directory must
// exist. what names the file in log messages ("transcript", "rollout").
func Follow(ctx context.Context, w *fswatch.Watcher, path, what string, onLine func(off int64, line []byte), log *zap.Logger) (io.Closer, error) {
	t := &follower{path: filepath.Clean(path), what: what, onLine: onLine, log: cmp.Or(log, zap.NewNop()), buf: make([]byte, ChunkSize)}
	// Watch before looking at the file, so no write falls in between; the
	// events that arrive meanwhile wait for t.mu.
	t.mu.Lock()
	h, err := fswatch.Or(w).Watch(filepath.Dir(t.path), t.onEvent, t.onError)
	if err != nil {
		t.mu.Unlock()
		return nil, err
	}
	t.h = h
	err = t.open(true)
	t.mu.Unlock()
	if err != nil {
		h.Close()
		return nil, err
	}
	t.stopCtx = context.AfterFunc(ctx, func() { t.Close() })
	return t, nil
}

// follower follows one path. fswatch runs its callbacks one at a time; mu
// also covers the opening in Follow.
type follower struct {
	path    string
	what    string
	onLine  func(off int64, line []byte)
	log     *zap.Logger
	h       *fswatch.Handle
	stopCtx func() bool

	mu    sync.Mutex
	f     *os.File    // nil while the path does not exist
	fi    os.FileInfo // identity of f
	split Splitter
	buf   []byte

	once sync.Once
}

// Close stops following and returns once no callback runs any more.
func (t *follower) Close() error {
	t.once.Do(func() {
		t.stopCtx()
		t.h.Close()
		t.mu.Lock()
		t.closeFile()
		t.mu.Unlock()
	})
	return nil
}

func (t *follower) onEvent(ev fswatch.Event) {
	if filepath.Clean(ev.Name) != t.path {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ev.Has(fswatch.Create) || ev.Has(fswatch.Remove) || ev.Has(fswatch.Rename) {
		t.reopen()
	} else if ev.Has(fswatch.Write) {
		t.read()
	}
}

func (t *follower) onError(err error) {
	t.log.Warn(t.what+" watch error", zap.Error(err))
	// Events may have been lost: look at the file afresh.
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reopen()
}

// open follows whatever file is at the path now, from its end (see Follow)
// or its start.
func (t *follower) open(fromEnd bool) error {
	f, fi, err := OpenRegularInfo(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if errors.Is(err, ErrNotRegular) {
		// A FIFO in its place, say: as if absent until a file replaces it.
		t.log.Warn(t.what+" is not a regular file; not read", zap.Error(err))
		return nil
	}
	if err != nil {
		return err
	}
	var pos int64
	if fromEnd {
		if pos, err = lastLineStart(f, fi.Size()); err != nil {
			f.Close()
			return err
		}
	}
	t.f, t.fi = f, fi
	t.split.Reset(pos)
	t.read()
	return nil
}

// reopen finishes the file it has, then switches to the one now at the
// path, if another (created, removed or replaced).
func (t *follower) reopen() {
	t.read()
	fi, err := os.Stat(t.path)
	if t.f != nil && err == nil && os.SameFile(fi, t.fi) {
		return
	}
	t.closeFile()
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			t.log.Warn("stat "+t.what, zap.Error(err))
		}
		return // gone for now: its creation will be another event
	}
	t.log.Debug(t.what + " created or replaced; reading it from its start")
	if err := t.open(false); err != nil {
		t.log.Warn("open "+t.what, zap.Error(err))
	}
}

func (t *follower) closeFile() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// read passes on the complete lines added since the last read.
func (t *follower) read() {
	if t.f == nil {
		return
	}
	fi, err := t.f.Stat()
	if err != nil {
		t.log.Warn("stat "+t.what, zap.Error(err))
		return
	}
	from := t.split.Pos + t.split.Partial
	if fi.Size() < from {
		t.log.Info(t.what+" truncated; following it from its new end", zap.Int64("size", fi.Size()))
		pos, err := lastLineStart(t.f, fi.Size())
		if err != nil {
			t.log.Warn("read "+t.what, zap.Error(err))
			return
		}
		t.split.Reset(pos)
		from = pos
	}
	skipped := t.split.Skipped
	feed := func(chunk []byte, _ bool) { t.split.Feed(chunk, t.onLine) }
	if _, err := ReadRange(context.Background(), t.f, from, fi.Size(), t.buf, feed); err != nil {
		t.log.Warn("read "+t.what, zap.Error(err))
	}
	WarnSkipped(t.log, t.what, t.f, t.split.Skipped-skipped)
}

// ReadRange reads the bytes of f in [from, to) into buf, handing each
// chunk to feed (first for the first), until ctx ends; it returns how many
// it read.
func ReadRange(ctx context.Context, f io.ReaderAt, from, to int64, buf []byte, feed func(chunk []byte, first bool)) (int64, error) {
	r := io.NewSectionReader(f, from, to-from)
	var read int64
	for {
		if err := ctx.Err(); err != nil {
			return read, err
		}
		n, err := r.Read(buf)
		feed(buf[:n], read == 0)
		read += int64(n)
		if err == io.EOF {
			return read, nil
		}
		if err != nil {
			return read, err
		}
	}
}

// WarnSkipped logs that n lines of f were longer than MaxLine and skipped.
func WarnSkipped(log *zap.Logger, what string, f *os.File, n int) {
	if n > 0 {
		log.Warn("skipped overlong "+what+" lines", zap.String("path", f.Name()), zap.Int("lines", n))
	}
}
