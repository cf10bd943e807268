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
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// Layout is the layout of one file per session, named <id><Ext>, in a
// folder per working directory (Claude Code's).
type Layout struct {
	// Folder is where the sessions run in dir are kept.
	Folder func(dir string) string
	// Ext is a session file's suffix (".jsonl").
	Ext string
	// IsID reports whether a file's name without Ext names a session: other
	// files in the folder are not listed.
	IsID func(id string) bool
}

// Folders is the Store of a format whose files are kept as Layout says:
// the whole of runtimes.Transcripts. Its List keeps each folder's listing
// while a watch of the folder says nothing in it changed.
type Folders[T any, P Index[T]] struct {
	*Store[T, P]
	// Has, Trash, Watch and Path come from the layout.
	kit.FilePerSession
	l Layout

	lmu       sync.Mutex
	listings  map[string]*listing // by folder
	idle      time.Duration
	afterFunc func(time.Duration, func()) *time.Timer
	closed    bool // Close was called: List watches nothing
}

// NewFolders returns the Store of the sessions f describes, kept as l says.
func NewFolders[T any, P Index[T]](f Format[T, P], l Layout, o Options) *Folders[T, P] {
	s := &Folders[T, P]{l: l, listings: map[string]*listing{}, idle: cmp.Or(o.ListIdle, listIdle), afterFunc: o.AfterFunc}
	if s.afterFunc == nil {
		s.afterFunc = time.AfterFunc
	}
	s.Store = New(f, s.file, o)
	s.FilePerSession = kit.FilePerSession{Folder: l.Folder, Ext: l.Ext, Watcher: o.Watcher, Forget: s.Store.Forget}
	return s
}

// WithWatcher makes Tail, Watch and List watch through w rather than the
// process's shared watcher; it returns s. Call it before using s.
func (s *Folders[T, P]) WithWatcher(w *fswatch.Watcher) *Folders[T, P] {
	s.Store.WithWatcher(w)
	s.FilePerSession.Watcher = w
	return s
}

// file validates sessionID, so that it cannot name a file outside dir's
// folder, and joins it to the folder without looking at the disk.
func (s *Folders[T, P]) file(dir, sessionID string) (string, error) {
	if err := runtimes.ValidSessionID(sessionID); err != nil {
		return "", err
	}
	return filepath.Join(s.l.Folder(dir), sessionID+s.l.Ext), nil
}

// summarize describes session id, stored at p (name in the open folder
// df): the file's metadata, read relative to df, tells whether the cached
// index is current, so an unchanged file is not even opened.
func (s *Folders[T, P]) summarize(ctx context.Context, id, p string, df *os.File, name string) (summary[P], error) {
	fi, err := jsonl.StatAt(df, name)
	if err != nil {
		return summary[P]{}, err
	}
	sum, mtime, x, err := s.Summary(ctx, id, p, fi)
	return summary[P]{sum, mtime, x}, err
}

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
func (s *Folders[T, P]) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	d := s.l.Folder(dir)
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
func (s *Folders[T, P]) generation(ctx context.Context, d string) (l *listing, gen uint64, watched bool) {
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
func (s *Folders[T, P]) release(d string, l *listing) {
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
func (s *Folders[T, P]) Close() error {
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
	return s.Store.Close()
}

// read lists d from the disk (see List).
func (s *Folders[T, P]) read(ctx context.Context, d string) ([]runtimes.Summary, error) {
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
		id, ok := strings.CutSuffix(de.Name(), s.l.Ext)
		if !ok || !de.Type().IsRegular() || !s.l.IsID(id) {
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
	s.Prune(func(p string) bool { return filepath.Dir(p) == d && !seen[p] })
	return newestFirst(out), nil
}
