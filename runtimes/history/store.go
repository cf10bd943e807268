package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
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
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// Options tune a Tree; the zero value is the daemon's.
type Options struct {
	Log     *zap.Logger      // nil logs nothing
	Watcher *fswatch.Watcher // nil: the process's shared one
	// CacheDir, when set, keeps the indexes of big files there too (see
	// lineindex.Cache.Persist).
	CacheDir string
	// ListIdle is how long a folder's watch outlives the last List that
	// used it (default: a minute).
	ListIdle time.Duration
	// AfterFunc is time.AfterFunc; tests fire the idle release themselves.
	AfterFunc func(time.Duration, func()) *time.Timer
	// Budget bounds the memory of the cached indexes (0:
	// lineindex.DefaultBudget; see lineindex.Tuning).
	Budget int64
}

// Tree reads the sessions a Format describes, wherever its layout (a
// DateTree or a Layout) finds their files: the whole of
// runtimes.Transcripts. It caches one index per file, and the summary List
// made of it, so it is meant to live as long as the daemon. It remembers
// where each session's file is, and the directory each file records by the
// file's identity, so that List indexes only the files of the directory
// asked. It is safe for concurrent use.
type Tree[T any, P Index[T]] struct {
	f       Format[T, P]
	l       DateTree[P]
	log     *zap.Logger
	watcher *fswatch.Watcher
	// byDir is the layout of a folder per directory (NewFolders), whose
	// Path, Has and Watch it gives; its Folder is nil for a DateTree.
	byDir kit.FilePerSession

	cache *lineindex.Cache[T, P] // by path

	// The summary List made of each path's index, while that index is
	// current: a warm List neither formats times nor cuts titles again.
	sumMu sync.Mutex
	sums  map[string]summary[P]

	mu    sync.Mutex
	paths map[string]string // file by session id

	// The directory each file records, by path, as long as the file is the
	// same one (see head).
	hmu   sync.Mutex
	heads map[string]head

	// List's watches of each root (the tree's, or a directory's folder)
	// and its last result per directory.
	lmu       sync.Mutex
	trees     map[string]*tree // by root
	vers      uint64           // the last tree.ver given
	idle      time.Duration
	afterFunc func(time.Duration, func()) *time.Timer
	closed    bool // Close was called: List watches nothing

	fullScans, scannedBytes, dirReads, headBytes atomic.Int64
}

// NewTree returns the Tree of the sessions f describes, kept as l says.
func NewTree[T any, P Index[T]](f Format[T, P], l DateTree[P], o Options) *Tree[T, P] {
	return newTree(f, l, o, kit.FilePerSession{})
}

func newTree[T any, P Index[T]](f Format[T, P], l DateTree[P], o Options, byDir kit.FilePerSession) *Tree[T, P] {
	if l.MaxWatchedDirs == 0 {
		l.MaxWatchedDirs = maxWatchedDirs
	}
	if l.HeadMin == 0 {
		l.HeadMin = headMin
	}
	if l.Depth == 0 && byDir.Folder == nil {
		l.Depth = 3
	}
	t := &Tree[T, P]{f: f, l: l, log: cmp.Or(o.Log, zap.NewNop()), watcher: o.Watcher, byDir: byDir,
		sums: map[string]summary[P]{}, paths: map[string]string{}, heads: map[string]head{},
		trees: map[string]*tree{}, idle: cmp.Or(o.ListIdle, listIdle), afterFunc: o.AfterFunc}
	if t.afterFunc == nil {
		t.afterFunc = time.AfterFunc
	}
	t.cache = lineindex.NewCache(f.Add, t.count, t.log, f.What)
	if o.CacheDir != "" {
		t.cache.Persist(o.CacheDir, f.Version)
	}
	t.cache.Tune(lineindex.Tuning{Budget: o.Budget})
	return t
}

// root is the folder List reads for dir's sessions.
func (t *Tree[T, P]) root(dir string) string {
	if t.byDir.Folder != nil {
		return t.byDir.Folder(dir)
	}
	return t.l.Root
}

// file is where session id of dir is: in a folder per directory, where it
// would be (validated, so that it cannot name a file elsewhere), without
// looking (Messages then finds it missing, Tail waits for it); in a date
// tree, where it is found (Path).
func (t *Tree[T, P]) file(dir, id string) (string, error) {
	if t.byDir.Folder == nil {
		return t.Path(dir, id)
	}
	if err := runtimes.ValidSessionID(id); err != nil {
		return "", err
	}
	return filepath.Join(t.byDir.Folder(dir), id+t.byDir.Ext), nil
}

// WithWatcher makes Tail, Watch and List watch through w rather than the
// process's shared watcher; it returns t. Call it before using t.
func (t *Tree[T, P]) WithWatcher(w *fswatch.Watcher) *Tree[T, P] {
	t.watcher, t.byDir.Watcher = w, w
	return t
}

// WithCacheDir makes t keep the indexes of big files in dir too (see
// lineindex.Cache.Persist); it returns t. Call it before using t.
func (t *Tree[T, P]) WithCacheDir(dir string) *Tree[T, P] {
	t.cache.Persist(dir, t.f.Version)
	return t
}

// Stats are what a Tree has read, for tests that prove what its caches
// save.
type Stats struct {
	FullScans    int64 // files read from their start
	ScannedBytes int64 // bytes read to index files
	DirReads     int64 // listings read from the disk
	Indexes      int   // files with a cached index
}

// TreeStats are a Tree's Stats and what its listing read besides.
type TreeStats struct {
	Stats
	Walks     int64 // reads of every folder of the tree (DirReads)
	HeadBytes int64 // bytes read from files' first lines
	Watched   int   // folders List watches
}

// Stats says what t has read so far.
func (t *Tree[T, P]) Stats() TreeStats {
	t.lmu.Lock()
	watched := 0
	for _, tr := range t.trees {
		watched += len(tr.gens)
	}
	t.lmu.Unlock()
	reads := t.dirReads.Load()
	return TreeStats{Stats{t.fullScans.Load(), t.scannedBytes.Load(), reads, t.cache.Len()}, reads, t.headBytes.Load(), watched}
}

// count adds what a refresh of the cache read to the counters.
func (t *Tree[T, P]) count(sc lineindex.Scan) {
	if sc.Full {
		t.fullScans.Add(1)
	}
	t.scannedBytes.Add(sc.Bytes)
}

// noSession wraps runtimes.ErrNoSession for a missing file (err nil or
// fs.ErrNotExist), and for something that is not a regular file (a FIFO,
// say) named like one: no session either, said so in the message. Another
// error is returned as it is.
func noSession(sessionID string, err error) error {
	switch {
	case errors.Is(err, jsonl.ErrNotRegular):
		return fmt.Errorf("session %s: %w: %w", sessionID, runtimes.ErrNoSession, err)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return fmt.Errorf("session %s: %w", sessionID, runtimes.ErrNoSession)
}

// Forget drops what t keeps of the file at p (one that is gone, or that
// its index no longer describes).
func (t *Tree[T, P]) Forget(p string) {
	t.cache.Forget(p)
	t.sumMu.Lock()
	delete(t.sums, p)
	t.sumMu.Unlock()
	t.lmu.Lock()
	for _, tr := range t.trees {
		tr.found = nil // rare: not worth looking for p in it
	}
	t.lmu.Unlock()
}

// prune forgets the cached indexes, summaries and heads of files the last
// walk of root did not see.
func (t *Tree[T, P]) prune(root string, seen map[string]bool) {
	drop := func(p string) bool { return !seen[p] && (t.byDir.Folder == nil || filepath.Dir(p) == root) }
	t.cache.Prune(drop)
	t.sumMu.Lock()
	maps.DeleteFunc(t.sums, func(p string, _ summary[P]) bool { return drop(p) })
	t.sumMu.Unlock()
	t.hmu.Lock()
	maps.DeleteFunc(t.heads, func(p string, _ head) bool { return drop(p) })
	t.hmu.Unlock()
}

// Index returns the up-to-date index of the file at path, whose version fi
// is (from a listing): a file whose cached index still describes fi is not
// even opened. The returned index is never modified later.
func (t *Tree[T, P]) Index(ctx context.Context, path string, fi os.FileInfo) (P, error) {
	return t.cache.Get(ctx, path, fi)
}

// summarize describes session id, stored at path in the version fi, from
// its up-to-date index, with the time the file was written (what a listing
// sorts by). A summary is made once per index; with Group, only the index
// and its time are: Group makes the sessions' summaries (the files' were a
// third of what a cold Gemini List allocated).
func (t *Tree[T, P]) summarize(ctx context.Context, id, path string, fi os.FileInfo) (summary[P], error) {
	x, err := t.cache.Get(ctx, path, fi)
	if err != nil {
		return summary[P]{}, err
	}
	mtime := x.Info().ModTime()
	if t.l.Group != nil {
		return summary[P]{mtime: mtime, x: x}, nil
	}
	t.sumMu.Lock()
	defer t.sumMu.Unlock()
	if sum, ok := t.sums[path]; ok && sum.x == x { // indexes are never modified
		return sum, nil
	}
	title, branch := t.f.Describe(x)
	sum := summary[P]{runtimes.Summary{
		SessionID:    id,
		Summary:      title,
		MessageCount: len(x.Lines()),
		LastUpdated:  mtime.UTC().Format(TimeFormat),
		Branch:       branch,
	}, mtime, x}
	t.sums[path] = sum
	return sum, nil
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
func (t *Tree[T, P]) Messages(ctx context.Context, dir, sessionID string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("invalid page: offset %d, limit %d", offset, limit)
	}
	p, err := t.file(dir, sessionID)
	if err != nil {
		return nil, 0, err
	}
	f, err := jsonl.OpenRegular(p) // a FIFO in its place must not block
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
			t.Forget(p)
		}
		return nil, 0, noSession(sessionID, err)
	}
	defer f.Close()
	var page []rpc.Message
	var total int
	err = t.cache.Read(ctx, p, f, func(x P) error {
		total = len(x.Lines())
		page = make([]rpc.Message, 0, min(limit, total-min(offset, total)))
		return x.ReadPage(f, offset, limit, desc, runtimes.PageBytes, func(off int64, b []byte) error {
			m, ok := t.f.Message(sessionID, off, b)
			switch {
			case ok:
				page = append(page, runtimes.Omitted(m, len(b)))
			case !t.f.Counted(b):
				return lineindex.Stale(fmt.Errorf("%s %s changed while read", t.f.What, p))
			}
			return nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	return page, total, nil
}

// tailed reads a line Tail followed (see Format.Tailed).
func (t *Tree[T, P]) tailed(sessionID string, off int64, b []byte) (rpc.Message, bool, error) {
	if t.f.Tailed != nil {
		return t.f.Tailed(sessionID, off, b)
	}
	if m, ok := t.f.Message(sessionID, off, b); ok || !t.f.Counted(b) {
		return m, ok, nil
	}
	return rpc.Message{}, false, errors.New("a message line that cannot be read")
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
func (t *Tree[T, P]) Tail(ctx context.Context, dir, sessionID string, emit func(rpc.Message)) (io.Closer, error) {
	p, err := t.file(dir, sessionID)
	if err != nil {
		return nil, err
	}
	// A folder that does not exist cannot be watched. The CLI creates it
	// with the session's first line anyway, and an empty one lists nothing.
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	log := t.log.With(zap.String("session_id", sessionID))
	return jsonl.Follow(ctx, t.watcher, p, t.f.What, func(off int64, b []byte) {
		m, ok, err := t.tailed(sessionID, off, b)
		if err != nil {
			log.Debug("unparsable "+t.f.What+" line", zap.Error(err))
		}
		if ok {
			emit(m)
		}
	}, log)
}
