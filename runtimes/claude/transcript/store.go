package transcript

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// Store reads the transcripts under one Claude projects directory
// (~/.claude/projects). It caches one index per transcript file, so it is
// meant to live as long as the daemon. It is safe for concurrent use.
type Store struct {
	projectsDir string
	log         *zap.Logger
	watcher     *fswatch.Watcher // nil: the shared one
	// One <session id>.jsonl per session in a folder per directory: Has,
	// Trash, Watch and Path come from the layout.
	kit.FilePerSession

	cache *jsonl.Cache[index, *index] // by transcript path

	// The summary List made of each path's index, while that index is
	// current: a warm List neither formats times nor cuts titles again.
	sumMu sync.Mutex
	sums  map[string]summary

	// What List read of each directory, kept while a watch of the
	// directory (fswatch.Gen) says nothing in it changed: a List of an
	// unchanged directory reads neither it nor its files' metadata.
	lmu      sync.Mutex
	listings map[string]*listing // by directory
	idle     time.Duration       // a watch unused this long is released
	closed   bool                // Close was called: List watches nothing
	// afterFunc is time.AfterFunc; tests fire the release themselves.
	afterFunc func(time.Duration, func()) *time.Timer

	// Counters that let tests prove what the cache saves.
	fullScans    atomic.Int64
	scannedBytes atomic.Int64
	dirReads     atomic.Int64
}

// listing is List's record of one directory.
type listing struct {
	gen     *fswatch.Gen       // nil: not watched (refused, lost, or s closed)
	refused time.Time          // when watching it was last refused
	timer   *time.Timer        // releases gen once List leaves it unused for s.idle
	at      uint64             // the generation list was read under
	list    []runtimes.Summary // nil: none yet
}

// listIdle is how long a directory's watch outlives its last List: a
// client refreshing its history view keeps it, a workspace no one looks at
// any more holds no kernel watch.
const listIdle = time.Minute

// refusedRetry is how long List goes on reading a directory whose watch
// was refused before it asks for the watch again.
const refusedRetry = 30 * time.Second

var _ runtimes.Transcripts = (*Store)(nil)

// New returns a Store for projectsDir; a nil logger logs nothing.
func New(projectsDir string, logger *zap.Logger) *Store {
	if logger == nil {
		logger = zap.NewNop()
	}
	s := &Store{projectsDir: projectsDir, log: logger, sums: map[string]summary{}, listings: map[string]*listing{}, idle: listIdle, afterFunc: time.AfterFunc}
	s.cache = jsonl.NewCache((*index).add, s.count, logger, "transcript")
	s.FilePerSession = kit.FilePerSession{Folder: s.Dir, Ext: ".jsonl", Forget: s.forget}
	return s
}

// WithWatcher makes Tail and List watch through w rather than the process's
// shared watcher; it returns s.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.watcher = w
	s.FilePerSession.Watcher = w
	return s
}

// WithCacheDir makes s keep the indexes of big transcripts in dir too (see
// jsonl.Cache.Persist), so that the first page of one after a restart needs
// no scan of it; it returns s.
func (s *Store) WithCacheDir(dir string) *Store {
	s.cache.Persist(dir, indexVersion)
	return s
}

// Dir is the folder holding dir's transcripts.
func (s *Store) Dir(dir string) string {
	return filepath.Join(s.projectsDir, EncodeDir(dir))
}

// path validates sessionID, so that it cannot name a file outside Dir(dir),
// and joins it to Dir(dir) without looking at the disk.
func (s *Store) path(dir, sessionID string) (string, error) {
	if err := runtimes.ValidSessionID(sessionID); err != nil {
		return "", err
	}
	return filepath.Join(s.Dir(dir), sessionID+".jsonl"), nil
}

// noSession wraps runtimes.ErrNoSession for a missing file, and for
// something that is not a regular file (a FIFO, say) named like one: no
// transcript either, said so in the message.
func noSession(sessionID string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s: %w", sessionID, runtimes.ErrNoSession)
	}
	if errors.Is(err, jsonl.ErrNotRegular) {
		return fmt.Errorf("session %s: %w: %w", sessionID, runtimes.ErrNoSession, err)
	}
	return err
}

// List returns every stored session of dir, newest first (by the file's
// modification time). Only files named <uuid>.jsonl are sessions: Claude's
// session ids are UUIDs, and this leaves out other files such as older CLIs'
// agent-*.jsonl sub-agent transcripts. A file unchanged since the last call
// is not read again; one that grew is read from where the last call stopped.
//
// While a watch of the directory says that nothing in it changed since the
// last List, that List's result is returned without reading anything; when
// the directory cannot be watched (the system's limit on watches is
// reached, say) every List reads it.
//
// The result is shared with later calls, not copied (a copy of 1,000
// summaries was two thirds of a List of an unchanged folder): callers read
// it and must not modify its elements; appending to it copies it (its
// capacity is its length).
func (s *Store) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	d := s.Dir(dir)
	l, gen, watched := s.generation(ctx, d)
	if watched {
		s.lmu.Lock()
		if l.list != nil && l.at == gen {
			list := l.list
			s.lmu.Unlock()
			return list, nil
		}
		s.lmu.Unlock()
	}
	list, err := s.read(ctx, d)
	if err != nil || !watched {
		return list, err
	}
	list = slices.Clip(list)
	s.lmu.Lock()
	// Generations only grow: a concurrent List that read under a later one
	// keeps its result.
	if l.list == nil || gen > l.at {
		l.at, l.list = gen, list
	}
	s.lmu.Unlock()
	return list, nil
}

// generation returns d's listing and its current generation; watched is
// false when d is not watched, and List must read it.
func (s *Store) generation(ctx context.Context, d string) (l *listing, gen uint64, watched bool) {
	s.lmu.Lock()
	if s.closed {
		s.lmu.Unlock()
		return nil, 0, false
	}
	l = s.listings[d]
	if l == nil {
		l = &listing{}
		l.timer = s.afterFunc(s.idle, func() { s.release(d, l) })
		s.listings[d] = l
	} else {
		l.timer.Reset(s.idle)
	}
	if l.gen == nil && time.Since(l.refused) >= refusedRetry {
		g, err := fswatch.Or(s.watcher).WatchGen(d)
		switch {
		case err == nil:
			l.gen = g
		case errors.Is(err, fs.ErrNotExist):
			// No transcripts yet: nothing to read either.
		default:
			l.refused = time.Now()
			s.log.Debug("history: cannot watch the transcripts folder, so every history call stats each transcript",
				zap.String("dir", d), zap.Error(err))
		}
	}
	g := l.gen
	s.lmu.Unlock()
	if g == nil {
		return l, 0, false
	}
	gen, err := g.Now(ctx)
	if err != nil && ctx.Err() != nil {
		return l, 0, false // the call is over; the watch is fine
	}
	if err != nil {
		// Lost (the folder was removed or replaced) or unsure: this List
		// reads the folder, the next one watches it afresh.
		s.log.Debug("history: transcripts folder watch lost", zap.String("dir", d), zap.Error(err))
		s.lmu.Lock()
		if l.gen == g {
			l.gen, l.list = nil, nil
		}
		s.lmu.Unlock()
		g.Close()
		return l, 0, false
	}
	return l, gen, true
}

// release drops d's listing l and its watch, once List has not used them
// for s.idle.
func (s *Store) release(d string, l *listing) {
	s.lmu.Lock()
	if s.listings[d] != l {
		s.lmu.Unlock()
		return
	}
	delete(s.listings, d)
	g := l.gen
	l.gen = nil
	s.lmu.Unlock()
	if g != nil {
		g.Close()
	}
}

// Close releases the watches List holds; later Lists read their folders.
// The daemon calls it when it shuts down.
func (s *Store) Close() error {
	s.lmu.Lock()
	s.closed = true
	var gens []*fswatch.Gen
	for _, l := range s.listings {
		l.timer.Stop()
		if l.gen != nil {
			gens = append(gens, l.gen)
			l.gen = nil
		}
	}
	clear(s.listings)
	s.lmu.Unlock()
	for _, g := range gens {
		g.Close()
	}
	s.cache.Close() // the index saves under way
	return nil
}

// read lists d from the disk (see List).
func (s *Store) read(ctx context.Context, d string) ([]runtimes.Summary, error) {
	s.dirReads.Add(1)
	df, err := jsonl.OpenDir(d)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
		return []runtimes.Summary{}, nil // a FIFO in the folder's place holds no transcripts either
	}
	if err != nil {
		return nil, err
	}
	defer df.Close()
	des, err := df.ReadDir(-1) // unsorted: sorted by time below
	if err != nil {
		return nil, err
	}
	out := make([]summary, 0, len(des))
	seen := make(map[string]bool, len(des))
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), ".jsonl")
		if !ok || !de.Type().IsRegular() || uuid.Validate(id) != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := filepath.Join(d, de.Name())
		sum, mtime, err := s.summarize(ctx, id, p, df, de.Name())
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
			continue // removed since ReadDir, or replaced by a FIFO, say
		}
		if err != nil {
			return nil, err
		}
		seen[p] = true
		out = append(out, summary{Summary: sum, mtime: mtime})
	}
	s.prune(d, seen)
	slices.SortFunc(out, func(a, b summary) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return cmp.Compare(a.SessionID, b.SessionID)
	})
	res := make([]runtimes.Summary, len(out))
	for i, l := range out {
		res[i] = l.Summary
	}
	return res, nil
}

// summary is what List reports of one session, with the time it sorts by
// and the index it was made from.
type summary struct {
	runtimes.Summary
	mtime time.Time
	x     *index
}

// summarize describes session id, stored at p (name in the open directory
// df), from its up-to-date index. The file's metadata tells whether the
// cached index is current, so an unchanged file is not even opened.
func (s *Store) summarize(ctx context.Context, id, p string, df *os.File, name string) (runtimes.Summary, time.Time, error) {
	fi, err := jsonl.StatAt(df, name)
	if err != nil {
		return runtimes.Summary{}, time.Time{}, err
	}
	x, err := s.cache.Get(ctx, p, fi)
	if err != nil {
		return runtimes.Summary{}, time.Time{}, err
	}
	s.sumMu.Lock()
	defer s.sumMu.Unlock()
	if sum, ok := s.sums[p]; ok && sum.x == x { // indexes are never modified
		return sum.Summary, sum.mtime, nil
	}
	mtime := x.Info().ModTime()
	sum := summary{runtimes.Summary{
		SessionID:    id,
		Summary:      x.title(),
		MessageCount: len(x.Lines()),
		LastUpdated:  mtime.UTC().Format(timeFormat),
		Branch:       x.branch,
	}, mtime, x}
	s.sums[p] = sum
	return sum.Summary, mtime, nil
}

// prune forgets the cached indexes and summaries of files in d that List
// did not see.
func (s *Store) prune(d string, seen map[string]bool) {
	drop := func(p string) bool { return filepath.Dir(p) == d && !seen[p] }
	s.cache.Prune(drop)
	s.sumMu.Lock()
	defer s.sumMu.Unlock()
	for p := range s.sums {
		if drop(p) {
			delete(s.sums, p)
		}
	}
}

// forget drops what s keeps of the file at p (one that is gone).
func (s *Store) forget(p string) {
	s.cache.Forget(p)
	s.sumMu.Lock()
	delete(s.sums, p)
	s.sumMu.Unlock()
}

// Messages returns a page of a transcript and the number of messages in it.
// With desc, offset counts from the newest message and the page is newest
// first. Only the page's lines are read and parsed, using the file's index
// of message offsets (built on first use, extended when the file grows). A
// page holds at most runtimes.PageBytes of lines (at least one; a bigger
// one Omitted).
func (s *Store) Messages(ctx context.Context, dir, sessionID string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
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
	err = s.cache.Read(ctx, p, f, func(x *index) error {
		total = len(x.Lines())
		page = make([]rpc.Message, 0, min(limit, total-min(offset, total)))
		return x.ReadPage(f, offset, limit, desc, runtimes.PageBytes, func(_ int64, b []byte) error {
			m, ok := decodeMessage(sessionID, b)
			if !ok {
				if f, fok := classify(b); fok && f.isMessage() {
					// The line the index counted, but not valid JSON inside
					// (the CLI never writes one; a damaged file can hold
					// one): left out of its page, so that it does not fail
					// every read of the pages around it.
					return nil
				}
				// Otherwise only a file rewritten in place, keeping its size
				// and time, gets here: the index is dropped so the next call
				// rebuilds it.
				return jsonl.Stale(fmt.Errorf("transcript %s changed while read", p))
			}
			page = append(page, runtimes.Omitted(m, len(b)))
			return nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	return page, total, nil
}
