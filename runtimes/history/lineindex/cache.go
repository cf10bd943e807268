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

// Cache keeps the Index of each file of a set, brought up to date when
// used, the least recently used dropped past its budget. It is safe for
// concurrent use.
type Cache[T any, P Indexed[T]] struct {
	scanner[T, P] // its tuning set before use (Tune)
	onScan        func(Scan)
	dir, version  string // where indexes are persisted, if anywhere (Persist)

	mu      sync.Mutex
	entries map[string]*cached[P] // by path
	lru     list.List             // of the entries, most recently used first
	used    int64                 // the sizes of the entries
	closed  bool                  // saves run in line (Close)
	closing chan struct{}         // closed by Close: saves waiting for saveDelay go at once
	saving  sync.WaitGroup        // saves under way
}

// DefaultBudget is the memory a Cache's indexes may take: that of a 100 MB
// Gemini chat file takes 10 MB, of a few turns a few kilobytes, so 64 MB
// keeps a big workspace's small sessions and the few big files being read
// (a daemon with a cache per store within 200 MB). A dropped index costs
// its next use a load (15–20 ms for 100 MB) or a scan.
const DefaultBudget = 64 << 20

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
	// epoch moves when the index stops growing from the one before (a full
	// scan, a drop as stale, the path forgotten): a save apart made in an
	// older one would overwrite a truer save, or bring back a removed one.
	epoch uint64
}

// NewCache returns a Cache whose indexes take lines with add (see scanner).
// onScan, when set, is told what each refresh read.
func NewCache[T any, P Indexed[T]](add func(x P, line []byte) bool, onScan func(Scan), log *zap.Logger, what string) *Cache[T, P] {
	if onScan == nil {
		onScan = func(Scan) {}
	}
	return &Cache[T, P]{scanner: scanner[T, P]{add: add, log: log, what: what}, onScan: onScan,
		entries: map[string]*cached[P]{}, closing: make(chan struct{})}
}

// Persist makes c keep the indexes of big files in dir too (none for ""),
// so that after a restart it need not scan them again; one saved by another
// version of the owner's add, or no longer true, is never used. It returns c.
func (c *Cache[T, P]) Persist(dir, version string) *Cache[T, P] {
	c.dir, c.version = dir, version
	return c
}

// Tune sets c's Tuning before c is first used; it returns c.
func (c *Cache[T, P]) Tune(t Tuning) *Cache[T, P] {
	c.tuning = t
	return c
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

// refresh brings e's index up to date with f, whose current version is fi;
// the caller holds e.mu.
func (c *Cache[T, P]) refresh(ctx context.Context, e *cached[P], f *os.File, fi os.FileInfo) error {
	if c.dir != "" && !e.loaded && e.idx == nil && fi.Size() >= c.tuning.persistMin() {
		x, err := c.load(e.path, f, fi)
		if err == nil {
			e.idx, e.saved = x, x.base().split.Pos
		} else if !errors.Is(err, fs.ErrNotExist) {
			c.log.Debug("persisted "+c.what+" index not used", zap.String("path", e.path), zap.Error(err))
		}
	}
	e.loaded = true
	x, sc, err := c.scanner.refresh(ctx, e.idx, f, fi)
	c.onScan(sc)
	if err != nil {
		return err
	}
	e.idx = x
	if sc.Full {
		e.epoch++
	}
	// Saved again once grown by a quarter: not every turn, yet a restart
	// reads again only a fraction.
	if pos := x.base().split.Pos; c.dir != "" && pos >= c.tuning.persistMin() && (sc.Full || pos >= e.saved+e.saved/4) {
		c.saveApart(e, x, f)
	}
	c.use(e)
	return nil
}

// saveApart persists x, just put in e (whose lock the caller holds), once
// the request that built it is done: on the reply's path, a save cost a
// first page of 100 MB 2 ms (Claude) to 30 ms (Gemini). The file's tail is
// summed now, from f, the version x describes; a goroutine waits saveDelay
// (started at once, it took a core from the reply on a 2-core machine),
// then saves x unless e's epoch moved. Close waits for it; after Close,
// saves run in line.
func (c *Cache[T, P]) saveApart(e *cached[P], x P, f *os.File) {
	tail, err := tailSum(f, x.base().split.Pos)
	if err != nil {
		c.log.Warn("cannot persist "+c.what+" index", zap.String("path", e.path), zap.Error(err))
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.save(e, x, tail)
		return
	}
	c.saving.Add(1)
	c.mu.Unlock()
	epoch := e.epoch
	go func() {
		defer c.saving.Done()
		t := time.NewTimer(c.tuning.saveDelay())
		select {
		case <-t.C:
		case <-c.closing:
			t.Stop()
		}
		e.mu.Lock()
		if e.epoch == epoch {
			c.save(e, x, tail)
		}
		e.mu.Unlock()
	}()
}

// Close starts the saves that wait and waits for them; c stays usable.
func (c *Cache[T, P]) Close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.closing)
	}
	c.mu.Unlock()
	c.saving.Wait()
}

// Get returns the up-to-date index of the file at path, whose version is fi
// (from a listing): if its index describes fi, it is not even opened.
func (c *Cache[T, P]) Get(ctx context.Context, path string, fi os.FileInfo) (P, error) {
	e := c.entry(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.idx == nil || !e.idx.base().current(fi) {
		// Not a FIFO that took the file's place; one stat (a second was a
		// tenth of a first history of 1,000 sessions).
		f, fi, err := jsonl.OpenRegularInfo(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := c.refresh(ctx, e, f, fi); err != nil {
			return nil, err
		}
	}
	return e.idx, nil
}

// Read calls fn with the up-to-date index of f, open on path, held (its
// offsets are f's). An error of fn marked Stale drops it: the next rebuilds.
func (c *Cache[T, P]) Read(ctx context.Context, path string, f *os.File, fn func(x P) error) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	e := c.entry(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := c.refresh(ctx, e, f, fi); err != nil {
		return err
	}
	err = fn(e.idx) // dropped for the budget meanwhile, e keeps its index
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
	if c.dir != "" {
		os.Remove(c.savedName(path))
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

// use counts e's index, just refreshed (the caller holds e.mu), at its
// size, and drops the least recently used entries but e while over budget:
// they are no longer found, but a request holding one goes on with it.
func (c *Cache[T, P]) use(e *cached[P]) {
	n := 512 + int64(len(e.path)) // the entry, its list element and map slot, the file version
	if x := e.idx; x != nil {
		n += int64(unsafe.Sizeof(*x)) + int64(cap(x.base().lines))*int64(unsafe.Sizeof(Span{})) + int64(cap(x.base().split.Pending)) + x.Size()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.elem == nil { // dropped (forgotten, pruned) meanwhile
		return
	}
	c.used += n - e.size
	e.size = n
	c.lru.MoveToFront(e.elem)
	for c.used > c.tuning.budget() && c.lru.Len() > 1 {
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

// Tuning is how a Cache scans, keeps and persists indexes: zero fields take
// their defaults (the daemon's); tests set their own, to run in parallel.
type Tuning struct {
	Budget int64 // the memory indexes may take (DefaultBudget)
	// ParallelMin is a part's least size in a full scan: smaller, goroutines
	// cost more than they save (8 MB). Parts bounds them (GOMAXPROCS).
	ParallelMin int64
	Parts       int
	// PersistMin is the size from which an index is persisted: smaller
	// files are scanned again in about a millisecond (1 MB).
	PersistMin      int64
	MaxPersistFiles int // bounds the saved indexes, as maxPersistBytes does (512)
	// SaveDelay is how long a save apart waits: for the reply to be
	// written, not so long that a restart soon after misses it (200 ms).
	SaveDelay time.Duration
}

// The bounds of Parts, and of the bytes of the saved indexes.
const maxParts, maxPersistBytes = 16, 64 << 20

func (t Tuning) budget() int64            { return cmp.Or(t.Budget, DefaultBudget) }
func (t Tuning) parallelMin() int64       { return cmp.Or(t.ParallelMin, 8<<20) }
func (t Tuning) parts() int64             { return int64(min(cmp.Or(t.Parts, runtime.GOMAXPROCS(0)), maxParts)) }
func (t Tuning) persistMin() int64        { return cmp.Or(t.PersistMin, 1<<20) }
func (t Tuning) maxPersistFiles() int     { return cmp.Or(t.MaxPersistFiles, 512) }
func (t Tuning) saveDelay() time.Duration { return cmp.Or(t.SaveDelay, 200*time.Millisecond) }
