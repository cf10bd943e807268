package transcript

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// Tail follows a transcript from its current end, calling emit (one call at
// a time, in file order) with every message appended after that, until ctx
// ends or the returned Closer is closed. The file need not exist yet: a
// session's transcript appears with its first turn. Tail watches the
// directory, not the file, so that it sees the file created, removed or
// replaced. A partial last line is held until its newline arrives. When the
// file shrinks, Tail goes on from its new end; when another file takes its
// place, Tail reads that one from the start (like tail -F). emit must not
// block for long, nor call Close.
//
// Every Tail shares the daemon's one inotify instance (see fswatch); nothing
// is debounced, so a message is emitted as soon as the write that completes
// its line is noticed. A watch the system refuses is an *fswatch.Error
// that says why.
func (s *Store) Tail(ctx context.Context, dir, sessionID string, emit func(rpc.Message)) (io.Closer, error) {
	p, err := s.path(dir, sessionID)
	if err != nil {
		return nil, err
	}
	// A directory that does not exist cannot be watched. Claude creates it
	// with the session's first line anyway, and an empty one lists nothing.
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	t := &tailer{
		path:      p,
		sessionID: sessionID,
		emit:      emit,
		log:       s.log.With(zap.String("session_id", sessionID)),
		buf:       make([]byte, jsonl.ChunkSize),
	}
	// Watch before looking at the file, so no write falls in between; the
	// events that arrive meanwhile wait for t.mu.
	t.mu.Lock()
	h, err := fswatch.Or(s.watcher).Watch(filepath.Dir(p), t.onEvent, t.onError)
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

// tailer follows one transcript path. Its callbacks run one at a time
// (fswatch serializes them); mu also covers the opening in Tail.
type tailer struct {
	path      string
	sessionID string
	emit      func(rpc.Message)
	log       *zap.Logger
	h         *fswatch.Handle
	stopCtx   func() bool

	mu    sync.Mutex
	f     *os.File    // nil while the path does not exist
	fi    os.FileInfo // identity of f
	split jsonl.Splitter
	buf   []byte

	once sync.Once
}

// Close stops following and returns once no callback runs any more.
func (t *tailer) Close() error {
	t.once.Do(func() {
		t.stopCtx()
		t.h.Close()
		t.mu.Lock()
		t.closeFile()
		t.mu.Unlock()
	})
	return nil
}

func (t *tailer) onEvent(ev fswatch.Event) {
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

func (t *tailer) onError(err error) {
	t.log.Warn("transcript watch error", zap.Error(err))
	// Events may have been lost: look at the file afresh.
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reopen()
}

// open starts following whatever file is at the path now: from its end (the
// start of a torn last line) when fromEnd, else from its start.
func (t *tailer) open(fromEnd bool) error {
	f, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	var pos int64
	if fromEnd {
		if pos, err = jsonl.LastLineStart(f, fi.Size()); err != nil {
			f.Close()
			return err
		}
	}
	t.f, t.fi = f, fi
	t.split.Reset(pos)
	t.read()
	return nil
}

// reopen handles the path being created, removed or replaced: it finishes
// the file it has, then switches to the one now at the path, if another.
func (t *tailer) reopen() {
	t.read()
	fi, err := os.Stat(t.path)
	if t.f != nil && err == nil && os.SameFile(fi, t.fi) {
		return
	}
	t.closeFile()
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			t.log.Warn("stat transcript", zap.Error(err))
		}
		return // gone for now: its creation will be another event
	}
	t.log.Debug("transcript created or replaced; reading it from its start")
	if err := t.open(false); err != nil {
		t.log.Warn("open transcript", zap.Error(err))
	}
}

func (t *tailer) closeFile() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// read emits the messages of the complete lines added since the last read.
func (t *tailer) read() {
	if t.f == nil {
		return
	}
	fi, err := t.f.Stat()
	if err != nil {
		t.log.Warn("stat transcript", zap.Error(err))
		return
	}
	from := t.split.Pos + t.split.Partial
	if fi.Size() < from {
		t.log.Info("transcript truncated; following it from its new end", zap.Int64("size", fi.Size()))
		pos, err := jsonl.LastLineStart(t.f, fi.Size())
		if err != nil {
			t.log.Warn("read transcript", zap.Error(err))
			return
		}
		t.split.Reset(pos)
		from = pos
	}
	skipped := t.split.Skipped
	r := io.NewSectionReader(t.f, from, fi.Size()-from)
	if err := jsonl.ReadLines(r, &t.split, t.buf, t.line); err != nil {
		t.log.Warn("read transcript", zap.Error(err))
	}
	if t.split.Skipped > skipped {
		t.log.Warn("skipped overlong transcript lines", zap.Int("lines", t.split.Skipped-skipped))
	}
}

// line emits one complete line if it is a message.
func (t *tailer) line(_ int64, b []byte) {
	l, err := ParseLine(b)
	if err != nil {
		t.log.Debug("unparsable transcript line", zap.Error(err))
		return
	}
	if m, ok := ToMessage(t.sessionID, l); ok {
		t.emit(m)
	}
}
