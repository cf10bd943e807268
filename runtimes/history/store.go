package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// Options tune a Store; the zero value is the daemon's.
type Options struct {
	Log     *zap.Logger      // nil logs nothing
	Watcher *fswatch.Watcher // nil: the process's shared one
	// CacheDir, when set, keeps the indexes of big files there too (see
	// jsonl.Cache.Persist).
	CacheDir string
	// ListIdle is how long a folder's watch outlives the last List that
	// used it (default: a minute).
	ListIdle time.Duration
	// AfterFunc is time.AfterFunc; tests fire the idle release themselves.
	AfterFunc func(time.Duration, func()) *time.Timer
}

// Store reads the sessions a Format describes. It caches one index per
// file, so it is meant to live as long as the daemon. It is safe for
// concurrent use.
type Store[T any, P Index[T]] struct {
	f   Format[T, P]
	log *zap.Logger
	// Has, Trash, Watch and Path come from the layout.
	kit.FilePerSession
	watcher *fswatch.Watcher

	cache *jsonl.Cache[T, P] // by path

	// The summary List made of each path's index, while that index is
	// current: a warm List neither formats times nor cuts titles again.
	sumMu sync.Mutex
	sums  map[string]summary[P]

	// What List read of each folder, kept while a watch of the folder
	// (fswatch.Gen) says nothing in it changed.
	lmu       sync.Mutex
	listings  map[string]*listing // by folder
	idle      time.Duration
	afterFunc func(time.Duration, func()) *time.Timer
	closed    bool // Close was called: List watches nothing

	fullScans, scannedBytes, dirReads atomic.Int64
}

var _ runtimes.Transcripts = (*Store[struct{ jsonl.Index }, *struct{ jsonl.Index }])(nil)

// New returns a Store of the sessions f describes.
func New[T any, P Index[T]](f Format[T, P], o Options) *Store[T, P] {
	s := &Store[T, P]{f: f, log: cmp.Or(o.Log, zap.NewNop()), watcher: o.Watcher, sums: map[string]summary[P]{},
		listings: map[string]*listing{}, idle: cmp.Or(o.ListIdle, listIdle), afterFunc: o.AfterFunc}
	if s.afterFunc == nil {
		s.afterFunc = time.AfterFunc
	}
	s.cache = jsonl.NewCache(f.Add, s.count, s.log, f.What)
	if o.CacheDir != "" {
		s.cache.Persist(o.CacheDir, f.Version)
	}
	s.FilePerSession = kit.FilePerSession{Folder: f.Folder, Ext: f.Ext, Watcher: o.Watcher, Forget: s.forget}
	return s
}

// Stats are what a Store has read, for tests that prove what its caches
// save.
type Stats struct {
	FullScans    int64 // files read from their start
	ScannedBytes int64 // bytes read to index files
	DirReads     int64 // folders listed from the disk
	Indexes      int   // files with a cached index
}

// Stats says what s has read so far.
func (s *Store[T, P]) Stats() Stats {
	return Stats{FullScans: s.fullScans.Load(), ScannedBytes: s.scannedBytes.Load(), DirReads: s.dirReads.Load(), Indexes: s.cache.Len()}
}

// count adds what a refresh of the cache read to the counters.
func (s *Store[T, P]) count(sc jsonl.Scan) {
	if sc.Full {
		s.fullScans.Add(1)
	}
	s.scannedBytes.Add(sc.Bytes)
}

// path validates sessionID, so that it cannot name a file outside dir's
// folder, and joins it to the folder without looking at the disk.
func (s *Store[T, P]) path(dir, sessionID string) (string, error) {
	if err := runtimes.ValidSessionID(sessionID); err != nil {
		return "", err
	}
	return filepath.Join(s.f.Folder(dir), sessionID+s.f.Ext), nil
}

// noSession wraps runtimes.ErrNoSession for a missing file, and for
// something that is not a regular file (a FIFO, say) named like one: no
// session either, said so in the message.
func noSession(sessionID string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s: %w", sessionID, runtimes.ErrNoSession)
	}
	if errors.Is(err, jsonl.ErrNotRegular) {
		return fmt.Errorf("session %s: %w: %w", sessionID, runtimes.ErrNoSession, err)
	}
	return err
}

// forget drops what s keeps of the file at p (one that is gone).
func (s *Store[T, P]) forget(p string) {
	s.cache.Forget(p)
	s.sumMu.Lock()
	delete(s.sums, p)
	s.sumMu.Unlock()
}

// Messages returns a page of a session and the number of messages in it.
// With desc, offset counts from the newest message and the page is newest
// first. Only the page's lines are read and parsed, using the file's index
// of message offsets (built on first use, extended when the file grows). A
// page holds at most runtimes.PageBytes of lines (at least one; a bigger
// one Omitted).
//
// A line the index kept that the format cannot read is one of two things,
// told apart here once for every format: a message line damaged inside
// (Format.Counted: the index counted it), left out of its page so that it
// does not fail every read of the pages around it; or a sign that the file
// was rewritten in place keeping its size and time, and the index no
// longer describes it: the index is dropped, so that the next call builds
// it again.
func (s *Store[T, P]) Messages(ctx context.Context, dir, sessionID string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("invalid page: offset %d, limit %d", offset, limit)
	}
	p, err := s.path(dir, sessionID)
	if err != nil {
		return nil, 0, err
	}
	f, err := jsonl.OpenRegular(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
			s.forget(p)
		}
		return nil, 0, noSession(sessionID, err)
	}
	defer f.Close()
	var page []rpc.Message
	var total int
	err = s.cache.Read(ctx, p, f, func(x P) error {
		total = len(x.Lines())
		page = make([]rpc.Message, 0, min(limit, total-min(offset, total)))
		return x.ReadPage(f, offset, limit, desc, runtimes.PageBytes, func(off int64, b []byte) error {
			m, ok := s.f.Message(sessionID, off, b)
			switch {
			case ok:
				page = append(page, runtimes.Omitted(m, len(b)))
			case !s.f.Counted(b):
				return jsonl.Stale(fmt.Errorf("%s %s changed while read", s.f.What, p))
			}
			return nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	return page, total, nil
}

// Tail follows a session's file from its current end, calling emit (one
// call at a time, in file order) with every message appended after that,
// until ctx ends or the returned Closer is closed. The file need not exist
// yet: a session's file appears with its first turn. Tail watches the
// folder, not the file, so that it sees the file created, removed or
// replaced. A partial last line is held until its newline arrives. When
// the file shrinks, Tail goes on from its new end; when another file takes
// its place, Tail reads that one from the start (like tail -F). emit must
// not block for long, nor call Close.
//
// Every Tail shares the daemon's one inotify instance (see fswatch);
// nothing is debounced, so a message is emitted as soon as the write that
// completes its line is noticed. A watch the system refuses is an
// *fswatch.Error that says why.
func (s *Store[T, P]) Tail(ctx context.Context, dir, sessionID string, emit func(rpc.Message)) (io.Closer, error) {
	p, err := s.path(dir, sessionID)
	if err != nil {
		return nil, err
	}
	// A folder that does not exist cannot be watched. The CLI creates it
	// with the session's first line anyway, and an empty one lists nothing.
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	log := s.log.With(zap.String("session_id", sessionID))
	return jsonl.Follow(ctx, s.watcher, p, s.f.What, func(off int64, b []byte) {
		m, ok, err := s.f.Tailed(sessionID, off, b)
		if err != nil {
			log.Debug("unparsable "+s.f.What+" line", zap.Error(err))
		}
		if ok {
			emit(m)
		}
	}, log)
}
