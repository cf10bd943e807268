package history

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes"
)

// listing is List's record of one folder.
type listing struct {
	gen     *fswatch.Gen       // nil: not watched (refused, lost, or the store closed)
	refused time.Time          // when watching it was last refused
	timer   *time.Timer        // releases gen once List leaves it unused for idle
	at      uint64             // the generation list was read under
	list    []runtimes.Summary // nil: none yet
}

// listIdle is how long a folder's watch outlives its last List: a client
// refreshing its history view keeps it, a workspace no one looks at any
// more holds no kernel watch.
const listIdle = time.Minute

// refusedRetry is how long List goes on reading a folder whose watch was
// refused before it asks for the watch again.
const refusedRetry = 30 * time.Second

// timeFormat is RFC 3339 with milliseconds, as the CLIs write timestamps.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// WithWatcher makes Tail, Watch and List watch through w rather than the
// process's shared watcher; it returns s. Call it before using s.
func (s *Store[T, P]) WithWatcher(w *fswatch.Watcher) *Store[T, P] {
	s.watcher = w
	s.FilePerSession.Watcher = w
	return s
}

// WithCacheDir makes s keep the indexes of big files in dir too (see
// jsonl.Cache.Persist); it returns s. Call it before using s.
func (s *Store[T, P]) WithCacheDir(dir string) *Store[T, P] {
	s.cache.Persist(dir, s.f.Version)
	return s
}

// List returns every stored session of dir, newest first (by the file's
// modification time). Only files named <id><Ext> whose id the format
// accepts are sessions. A file unchanged since the last call is not read
// again; one that grew is read from where the last call stopped.
//
// While a watch of the folder says that nothing in it changed since the
// last List, that List's result is returned without reading anything; when
// the folder cannot be watched (the system's limit on watches is reached,
// say) every List reads it.
//
// The result is shared with later calls, not copied (a copy of 1,000
// summaries was two thirds of a List of an unchanged folder): callers read
// it and must not modify its elements; appending to it copies it (its
// capacity is its length).
func (s *Store[T, P]) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	d := s.f.Folder(dir)
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
func (s *Store[T, P]) generation(ctx context.Context, d string) (l *listing, gen uint64, watched bool) {
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
			// No sessions yet: nothing to read either.
		default:
			l.refused = time.Now()
			s.log.Debug("history: cannot watch the "+s.f.What+" folder, so every history call stats each "+s.f.What,
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
		s.log.Debug("history: "+s.f.What+" folder watch lost", zap.String("dir", d), zap.Error(err))
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
// for the idle time.
func (s *Store[T, P]) release(d string, l *listing) {
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

// Close releases the watches List holds (later Lists read their folders)
// and waits for the index saves under way. The daemon calls it when it
// shuts down.
func (s *Store[T, P]) Close() error {
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
	s.cache.Close()
	return nil
}

// summary is what List reports of one session, with the time it sorts by
// and the index it was made from.
type summary[P any] struct {
	runtimes.Summary
	mtime time.Time
	x     P
}

// read lists d from the disk (see List).
func (s *Store[T, P]) read(ctx context.Context, d string) ([]runtimes.Summary, error) {
	s.dirReads.Add(1)
	df, err := jsonl.OpenDir(d)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
		return []runtimes.Summary{}, nil // a FIFO in the folder's place holds no sessions either
	}
	if err != nil {
		return nil, err
	}
	defer df.Close()
	des, err := df.ReadDir(-1) // unsorted: sorted by time below
	if err != nil {
		return nil, err
	}
	out := make([]summary[P], 0, len(des))
	seen := make(map[string]bool, len(des))
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), s.f.Ext)
		if !ok || !de.Type().IsRegular() || !s.f.IsID(id) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := filepath.Join(d, de.Name())
		sum, err := s.summarize(ctx, id, p, df, de.Name())
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
			continue // removed since ReadDir, or replaced by a FIFO, say
		}
		if err != nil {
			return nil, err
		}
		seen[p] = true
		out = append(out, sum)
	}
	s.prune(d, seen)
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
	return res, nil
}

// summarize describes session id, stored at p (name in the open folder
// df), from its up-to-date index. The file's metadata tells whether the
// cached index is current, so an unchanged file is not even opened.
func (s *Store[T, P]) summarize(ctx context.Context, id, p string, df *os.File, name string) (summary[P], error) {
	fi, err := jsonl.StatAt(df, name)
	if err != nil {
		return summary[P]{}, err
	}
	x, err := s.cache.Get(ctx, p, fi)
	if err != nil {
		return summary[P]{}, err
	}
	s.sumMu.Lock()
	defer s.sumMu.Unlock()
	if sum, ok := s.sums[p]; ok && sum.x == x { // indexes are never modified
		return sum, nil
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
	s.sums[p] = sum
	return sum, nil
}

// prune forgets the cached indexes and summaries of files in d that List
// did not see.
func (s *Store[T, P]) prune(d string, seen map[string]bool) {
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
