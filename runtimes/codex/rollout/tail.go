package rollout

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

// Tail follows thread id's rollout from its current end, calling emit (one
// call at a time, in file order) with every message appended after that,
// until ctx ends or the returned Closer is closed. The rollout must exist
// (Codex creates it with the thread's first turn, under a name only it
// knows) and record dir as its cwd; the error wraps runtimes.ErrNoSession
// otherwise. A partial last line is held until its newline arrives; when the
// file shrinks, Tail goes on from its new end; when another file takes its
// place, Tail reads that one from its start.
//
// Every Tail shares the daemon's one inotify instance (see fswatch), watching
// the rollout's date directory so that it sees the file replaced too.
func (s *Store) Tail(ctx context.Context, dir, id string, emit func(rpc.Message)) (io.Closer, error) {
	p, err := s.Path(dir, id)
	if err != nil {
		return nil, err
	}
	t := &tailer{
		path:     p,
		threadID: id,
		emit:     emit,
		log:      s.log.With(zap.String("thread_id", id)),
		buf:      make([]byte, jsonl.ChunkSize),
	}
	// Watch before opening the file, so that no write falls in between; the
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

// tailer follows one rollout path. Its callbacks run one at a time (fswatch
// serializes them); mu also covers the opening in Tail.
type tailer struct {
	path     string
	threadID string
	emit     func(rpc.Message)
	log      *zap.Logger
	h        *fswatch.Handle
	stopCtx  func() bool

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
	t.log.Warn("rollout watch error", zap.Error(err))
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
			t.log.Warn("stat rollout", zap.Error(err))
		}
		return
	}
	if err := t.open(false); err != nil {
		t.log.Warn("open rollout", zap.Error(err))
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
		t.log.Warn("stat rollout", zap.Error(err))
		return
	}
	from := t.split.Pos + t.split.Partial
	if fi.Size() < from {
		t.log.Info("rollout truncated; following it from its new end", zap.Int64("size", fi.Size()))
		pos, err := jsonl.LastLineStart(t.f, fi.Size())
		if err != nil {
			t.log.Warn("read rollout", zap.Error(err))
			return
		}
		t.split.Reset(pos)
		from = pos
	}
	r := io.NewSectionReader(t.f, from, fi.Size()-from)
	if err := jsonl.ReadLines(r, &t.split, t.buf, t.line); err != nil {
		t.log.Warn("read rollout", zap.Error(err))
	}
}

// line emits one complete line if it is a message; others, malformed ones
// included, are skipped.
func (t *tailer) line(off int64, b []byte) {
	l, err := ParseLine(b)
	if err != nil {
		t.log.Debug("unparsable rollout line", zap.Error(err))
		return
	}
	if m, ok := ToMessage(t.threadID, off, l); ok {
		t.emit(m)
	}
}
