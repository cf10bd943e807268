package lineindex

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// Cache keeps the Index of each file of a set, brought up to date (see
// Refresh) when used, within a budget of memory (DefaultBudget), the least
// recently used dropped first. It is safe for concurrent use.
type Cache[T any, P Indexed[T]] struct {
	add    func(x P, line []byte) bool
	onScan func(Scan)
	log    *zap.Logger
	what   string

	disk   *disk  // nil: indexes live only in memory
	tuning Tuning // set before use

	mu      sync.Mutex
	entries map[string]*cached[P] // by path
	lru     list.List             // of the entries, most recently used first
	used    int64                 // the sizes of the entries
	budget  int64                 // more than this used: the least recently used are dropped
	closed  bool                  // saves run in line (Close)
	closing chan struct{}         // closed by Close: saves waiting for saveDelay go at once
	saving  sync.WaitGroup        // saves under way
	hold    chan struct{}         // tests: a save that runs apart waits for it to close
}

// DefaultBudget is the memory a Cache's indexes may take, as they estimate
// it (Indexed's Size), before the least recently used are dropped. The
// index of a 100 MB Gemini chat file takes about 10 MB (its replay keeps
// every record's place), that of a session of a few turns a few kilobytes:
// 64 MB keeps every small session of a big workspace and the few big
// transcripts being read, and a daemon with a cache per store within 200
// MB. A dropped index costs its next use a load of its persisted copy
// (15–20 ms for a 100 MB Gemini file) or a scan.
const DefaultBudget = 64 << 20

// entryCost is what an entry takes besides its index's own: the entry, its
// list element and map slot, the index's struct and file version.
const entryCost = 512

// cached is the index of one path; mu serializes its refreshes and covers
// reading the file by its offsets.
type cached[P any] struct {
	path string
	elem *list.Element // guarded by the Cache's mu: nil once dropped
	size int64         // guarded by the Cache's mu: as counted in used

	mu     sync.Mutex
	idx    P     // nil until first scanned
	loaded bool  // the persisted index was looked for
	saved  int64 // how much of the file the persisted index covers
	// epoch moves when the index stops growing from the one before it: a
	// full scan, a drop as stale, the path forgotten. A save that ran apart
	// writes its index only if the epoch is still the one it was made in.
	epoch uint64
}

// Persist makes c keep the indexes of big files in dir too, so that a
// Cache after a restart starts from them rather than scanning again. An
// index saved by another version of the owner's add (version names what it
// gathers), or that no longer describes its file, is never used. It does
// nothing for an empty dir, nor where files have no identity (FileKey). It
// returns c.
func (c *Cache[T, P]) Persist(dir, version string) *Cache[T, P] {
	if dir != "" {
		c.disk = &disk{dir: dir, version: version}
	}
	return c
}

// Tune sets how c scans files and persists their indexes, before c is
// first used; it returns c.
func (c *Cache[T, P]) Tune(t Tuning) *Cache[T, P] {
	c.tuning = t
	return c
}

// Budget sets how much memory c's indexes may take; it returns c.
func (c *Cache[T, P]) Budget(n int64) *Cache[T, P] {
	c.mu.Lock()
	c.budget = n
	c.mu.Unlock()
	return c
}

// NewCache returns a Cache whose indexes take lines with add (see Refresh).
// onScan, when set, is told what each refresh read; what names the files in
// log messages.
func NewCache[T any, P Indexed[T]](add func(x P, line []byte) bool, onScan func(Scan), log *zap.Logger, what string) *Cache[T, P] {
	if onScan == nil {
		onScan = func(Scan) {}
	}
	return &Cache[T, P]{add: add, onScan: onScan, log: log, what: what, entries: map[string]*cached[P]{}, closing: make(chan struct{}),
		budget: DefaultBudget}
}

// entry returns the entry of path, creating it, as the most recently used.
func (c *Cache[T, P]) entry(path string) *cached[P] {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[path]
	if e == nil {
		e = &cached[P]{path: path}
		e.elem = c.lru.PushFront(e)
		c.entries[path] = e
	} else {
		c.lru.MoveToFront(e.elem)
	}
	return e
}

// refresh brings e's index up to date with f, whose current version is fi.
// The caller holds e.mu.
func (c *Cache[T, P]) refresh(ctx context.Context, path string, e *cached[P], f *os.File, fi os.FileInfo) error {
	if c.disk != nil && !e.loaded {
		e.loaded = true
		if e.idx == nil && fi.Size() >= c.tuning.persistMin() {
			c.load(path, e, f, fi)
		}
	}
	x, sc, err := refreshTuned(ctx, e.idx, f, fi, c.add, c.log, c.what, c.tuning)
	c.onScan(sc)
	if err != nil {
		return err
	}
	e.idx = x
	if sc.Full {
		e.epoch++
	}
	// Saved again when it has grown by a quarter: a file that grows by a
	// line a turn is not rewritten every turn, and a restart reads again
	// only a fraction of the file.
	if pos := x.base().split.Pos; c.disk != nil && pos >= c.tuning.persistMin() && (sc.Full || pos >= e.saved+e.saved/4) {
		c.saveApart(path, e, x, f)
	}
	c.use(e)
	return nil
}

// saveApart persists x, the index of path just put in e (whose lock the
// caller holds), once the request that built it is done: encoding and
// writing a big index on the reply's path cost 2 ms (Claude) to 30 ms
// (Gemini) per 100 MB of a first page. The checksum of the file's last
// indexed bytes is taken now, from f, the version x describes; the rest
// runs on a goroutine that waits saveDelay, then takes e's lock (started at
// once, it took a core from the reply's last steps on a 2-core machine). x
// is saved even if an index that extends it replaced it meanwhile, but not
// once the epoch moved: it would then overwrite a truer save, or bring back
// a removed one. Close waits for it; after Close, saves run in line.
func (c *Cache[T, P]) saveApart(path string, e *cached[P], x P, f *os.File) {
	tail, err := tailSum(f, x.base().split.Pos)
	if err != nil {
		c.log.Warn("cannot persist "+c.what+" index", zap.String("path", path), zap.Error(err))
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.save(path, e, x, tail)
		return
	}
	c.saving.Add(1)
	c.mu.Unlock()
	epoch, hold := e.epoch, c.hold
	go func() {
		defer c.saving.Done()
		if hold != nil {
			<-hold
		}
		t := time.NewTimer(c.tuning.saveDelay())
		select {
		case <-t.C:
		case <-c.closing:
			t.Stop()
		}
		e.mu.Lock()
		if e.epoch == epoch {
			c.save(path, e, x, tail)
		}
		e.mu.Unlock()
	}()
}

// Close waits for the saves under way (starting those that wait); the
// cache stays usable, and any later save runs in line.
func (c *Cache[T, P]) Close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.closing)
	}
	c.mu.Unlock()
	c.saving.Wait()
}

// load takes the persisted index of path into e, if it still describes f.
func (c *Cache[T, P]) load(path string, e *cached[P], f *os.File, fi os.FileInfo) {
	x := P(new(T))
	facts, err := c.disk.load(x.base(), path, f, fi)
	if err == nil {
		err = x.ReadFacts(facts)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Debug("persisted "+c.what+" index not used", zap.String("path", path), zap.Error(err))
		}
		return
	}
	e.idx, e.saved = x, x.base().split.Pos
}

// save persists x, e's index of path, whose file's last indexed bytes sum
// to tail; the caller holds e's lock. A failure costs only a scan after a
// restart: it is logged, not returned.
func (c *Cache[T, P]) save(path string, e *cached[P], x P, tail uint32) {
	data, err := encode(x.base(), x.AppendFacts(nil), path, c.disk.version, tail)
	if err == nil {
		err = c.disk.save(path, data, c.tuning)
	}
	if err != nil {
		c.log.Warn("cannot persist "+c.what+" index", zap.String("path", path), zap.Error(err))
		return
	}
	e.saved = x.base().split.Pos
}

// Get returns the up-to-date index of the file at path, whose version fi is
// (from a directory listing, say): a file whose cached index still
// describes fi is not even opened. The index is never modified later.
func (c *Cache[T, P]) Get(ctx context.Context, path string, fi os.FileInfo) (P, error) {
	e := c.entry(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !current(e.idx, fi) {
		// Not a FIFO that took the file's place since fi; the version
		// read is the opened file's (one stat: a second was a tenth of a
		// first history of 1,000 sessions).
		f, fi, err := jsonl.OpenRegularInfo(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := c.refresh(ctx, path, e, f, fi); err != nil {
			return nil, err
		}
	}
	return e.idx, nil
}

// Read brings the index of f, open on path, up to date and calls fn with
// it. The index is held meanwhile: its offsets are those of the file
// version f has open only until someone refreshes it again. An error of fn
// marked by Stale drops the index, so that the next use rebuilds it.
func (c *Cache[T, P]) Read(ctx context.Context, path string, f *os.File, fn func(x P) error) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	e := c.entry(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := c.refresh(ctx, path, e, f, fi); err != nil {
		return err
	}
	// Dropped for the budget meanwhile, e keeps its index for fn: a
	// dropped entry is only no longer found.
	err = fn(e.idx)
	var s staleError
	if errors.As(err, &s) {
		e.idx = nil
		e.epoch++
		c.use(e)
		return s.err
	}
	return err
}

// Stale marks err, returned by a Read callback, as saying that the index no
// longer matches the file (rewritten in place, its size and time kept).
func Stale(err error) error { return staleError{err} }

type staleError struct{ err error }

func (e staleError) Error() string { return e.err.Error() }
func (e staleError) Unwrap() error { return e.err }

// Forget drops the index of path (a file that is gone), persisted too.
func (c *Cache[T, P]) Forget(path string) {
	c.mu.Lock()
	e := c.entries[path]
	if e != nil {
		c.drop(e)
	}
	c.mu.Unlock()
	if e != nil { // a save under way must not bring the removed one back
		e.mu.Lock()
		e.epoch++
		e.mu.Unlock()
	}
	if c.disk != nil {
		os.Remove(c.disk.name(path))
	}
}

// Prune drops the indexes of the paths for which drop reports true.
func (c *Cache[T, P]) Prune(drop func(path string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, e := range c.entries {
		if drop(p) {
			c.drop(e)
		}
	}
}

// Len is the number of paths with an index.
func (c *Cache[T, P]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// sizeOf estimates the memory x, which may be nil, takes.
func sizeOf[T any, P Indexed[T]](x P) int64 {
	if x == nil {
		return 0
	}
	b := x.base()
	return int64(unsafe.Sizeof(*x)) + int64(cap(b.lines))*int64(unsafe.Sizeof(Span{})) + int64(cap(b.split.Pending)) + x.Size()
}

// use counts e's index, just refreshed (the caller holds e.mu), at its
// size now, and drops the least recently used entries, e excepted, while
// the cache is over its budget. A dropped entry is only no longer found:
// a request that holds it goes on with its index (a page read in progress
// is not broken), and the next use of its path makes a new entry, loaded
// from the persisted index (whose save a drop does not stop) or scanned.
func (c *Cache[T, P]) use(e *cached[P]) {
	n := entryCost + int64(len(e.path)) + sizeOf(e.idx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.elem == nil { // dropped (forgotten, pruned) meanwhile
		return
	}
	c.used += n - e.size
	e.size = n
	c.lru.MoveToFront(e.elem)
	for c.used > c.budget && c.lru.Len() > 1 {
		c.drop(c.lru.Back().Value.(*cached[P]))
	}
}

// drop removes e from c; the caller holds c.mu.
func (c *Cache[T, P]) drop(e *cached[P]) {
	delete(c.entries, e.path)
	c.lru.Remove(e.elem)
	c.used -= e.size
	e.elem, e.size = nil, 0
}

// Tuning is how a Cache scans files and persists their indexes (Cache.Tune).
// A zero field takes its default, as the daemon leaves them all; tests set
// small values, each its own, so that they can run in parallel.
type Tuning struct {
	// ParallelMin is the size from which a full scan is cut into parts
	// scanned at once, at least this much each: below it, goroutines cost
	// more than they save. Default 8 MB.
	ParallelMin int64
	// Parts bounds the parts of one full scan. Default GOMAXPROCS, at most
	// maxParts.
	Parts int
	// PersistMin is the size from which a file's index is persisted:
	// smaller files are scanned again in about a millisecond. Default 1 MB.
	PersistMin int64
	// MaxPersistFiles bounds the directory of persisted indexes (as
	// maxPersistBytes does), the least recently saved dropped first.
	// Default 512.
	MaxPersistFiles int
	// SaveDelay is how long a save that runs apart waits: long enough for
	// the reply of the request that read the file to be written, short
	// enough that a restart soon after finds the index. Default 200 ms.
	SaveDelay time.Duration
}

const (
	maxParts        = 16
	maxPersistBytes = 64 << 20
)

func (t Tuning) parallelMin() int64 { return cmp.Or(t.ParallelMin, 8<<20) }

func (t Tuning) parts() int64 { return int64(min(cmp.Or(t.Parts, runtime.GOMAXPROCS(0)), maxParts)) }

func (t Tuning) persistMin() int64 { return cmp.Or(t.PersistMin, 1<<20) }

func (t Tuning) maxPersistFiles() int { return cmp.Or(t.MaxPersistFiles, 512) }

func (t Tuning) saveDelay() time.Duration { return cmp.Or(t.SaveDelay, 200*time.Millisecond) }
