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
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
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
	// Budget bounds the memory of the cached indexes (0:
	// jsonl.DefaultBudget; see jsonl.Cache.Budget).
	Budget int64
}

// Store reads the sessions a Format describes, wherever a layout finds
// their files: the indexes, the summaries List makes of them, pages and
// tails. It caches one index per file, so it is meant to live as long as
// the daemon. It is safe for concurrent use.
type Store[T any, P Index[T]] struct {
	f       Format[T, P]
	file    func(dir, sessionID string) (string, error)
	log     *zap.Logger
	watcher *fswatch.Watcher

	cache *jsonl.Cache[T, P] // by path

	// The summary List made of each path's index, while that index is
	// current: a warm List neither formats times nor cuts titles again.
	sumMu sync.Mutex
	sums  map[string]summary[P]

	fullScans, scannedBytes, dirReads atomic.Int64
}

// New returns a Store of the sessions f describes. file is where the
// layout keeps sessionID of dir: it validates the id (so that it cannot
// name a file elsewhere), and either returns where the file is or would be
// (Messages then finds it missing, Tail waits for it), or says with an
// error wrapping runtimes.ErrNoSession that dir has no such session.
func New[T any, P Index[T]](f Format[T, P], file func(dir, sessionID string) (string, error), o Options) *Store[T, P] {
	s := &Store[T, P]{f: f, file: file, log: cmp.Or(o.Log, zap.NewNop()), watcher: o.Watcher, sums: map[string]summary[P]{}}
	s.cache = jsonl.NewCache(f.Add, s.count, s.log, f.What)
	if o.CacheDir != "" {
		s.cache.Persist(o.CacheDir, f.Version)
	}
	if o.Budget > 0 {
		s.cache.Budget(o.Budget)
	}
	return s
}

// Log is the store's logger.
func (s *Store[T, P]) Log() *zap.Logger { return s.log }

// Watcher is the watcher s watches through (nil: the shared one).
func (s *Store[T, P]) Watcher() *fswatch.Watcher { return s.watcher }

// WithWatcher makes Tail watch through w rather than the process's shared
// watcher; it returns s. Call it before using s.
func (s *Store[T, P]) WithWatcher(w *fswatch.Watcher) *Store[T, P] {
	s.watcher = w
	return s
}

// WithCacheDir makes s keep the indexes of big files in dir too (see
// jsonl.Cache.Persist); it returns s. Call it before using s.
func (s *Store[T, P]) WithCacheDir(dir string) *Store[T, P] {
	s.cache.Persist(dir, s.f.Version)
	return s
}

// Close waits for the index saves under way; s stays usable.
func (s *Store[T, P]) Close() error {
	s.cache.Close()
	return nil
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

// Forget drops what s keeps of the file at p (one that is gone).
func (s *Store[T, P]) Forget(p string) {
	s.cache.Forget(p)
	s.sumMu.Lock()
	delete(s.sums, p)
	s.sumMu.Unlock()
}

// Prune forgets the cached indexes and summaries of the paths for which
// drop reports true (files a listing no longer sees).
func (s *Store[T, P]) Prune(drop func(path string) bool) {
	s.cache.Prune(drop)
	s.sumMu.Lock()
	defer s.sumMu.Unlock()
	for p := range s.sums {
		if drop(p) {
			delete(s.sums, p)
		}
	}
}

// Index returns the up-to-date index of the file at path, whose version fi
// is (from a listing): a file whose cached index still describes fi is not
// even opened. The returned index is never modified later.
func (s *Store[T, P]) Index(ctx context.Context, path string, fi os.FileInfo) (P, error) {
	return s.cache.Get(ctx, path, fi)
}

// Summary describes session id, stored at path in the version fi, from its
// up-to-date index, which it returns too, with the time the file was
// written (what a listing sorts by). A summary is made once per index.
func (s *Store[T, P]) Summary(ctx context.Context, id, path string, fi os.FileInfo) (runtimes.Summary, time.Time, P, error) {
	x, err := s.cache.Get(ctx, path, fi)
	if err != nil {
		return runtimes.Summary{}, time.Time{}, nil, err
	}
	s.sumMu.Lock()
	defer s.sumMu.Unlock()
	if sum, ok := s.sums[path]; ok && sum.x == x { // indexes are never modified
		return sum.Summary, sum.mtime, x, nil
	}
	mtime := x.Info().ModTime()
	title, branch := s.f.Describe(x)
	sum := summary[P]{runtimes.Summary{
		SessionID:    id,
		Summary:      title,
		MessageCount: len(x.Lines()),
		LastUpdated:  mtime.UTC().Format(timeFormat),
		Branch:       branch,
	}, mtime, x}
	s.sums[path] = sum
	return sum.Summary, mtime, x, nil
}

// summary is a Summary with the time it sorts by and the index it was
// made from.
type summary[P any] struct {
	runtimes.Summary
	mtime time.Time
	x     P
}

// newestFirst is what a List answers of out: the summaries, the most
// recently written first (by id when two were written at once).
func newestFirst[P any](out []summary[P]) []runtimes.Summary {
	slices.SortFunc(out, func(a, b summary[P]) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return cmp.Compare(a.SessionID, b.SessionID)
	})
	res := make([]runtimes.Summary, len(out))
	for i, l := range out {
		res[i] = l.Summary
	}
	return res
}

// timeFormat is RFC 3339 with milliseconds, as the CLIs write timestamps.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

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
	p, err := s.file(dir, sessionID)
	if err != nil {
		return nil, 0, err
	}
	f, err := jsonl.OpenRegular(p) // a FIFO in its place must not block
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
			s.Forget(p)
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
	p, err := s.file(dir, sessionID)
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
