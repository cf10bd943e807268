package chats

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/runtimes"
)

// listWatch is what lets a List of an unchanged Gemini home read nothing:
// a change count (fswatch.Gen) of tmp/, of each tmp/<slug>/chats, and of
// each tmp/<slug> that has no chats directory yet (where one would be
// made), all on the daemon's one inotify instance. While the counts are
// those a List was read under, its result still holds.
type listWatch struct {
	gens    map[string]*fswatch.Gen // by directory
	epoch   uint64                  // bumped whenever gens changes
	refused time.Time               // when watching was last refused
	timer   *time.Timer             // releases the watches once List leaves them unused for s.idle
	closed  bool                    // Close was called: List watches nothing
	// By the workspace's project hashes rather than its path: a path
	// through a link that now leads elsewhere asks for other files.
	lists map[projectHashes]listed
}

// stamp names the state of every watched directory: the counts only grow,
// so their sum is the same only while none changed, for the same set of
// directories (epoch).
type stamp struct{ epoch, sum uint64 }

func (a stamp) after(b stamp) bool {
	return a.epoch > b.epoch || (a.epoch == b.epoch && a.sum > b.sum)
}

type listed struct {
	at   stamp
	list []runtimes.Summary
}

// maxWatched bounds the directories watched (Store.maxWatched; tests
// lower it): past it List reads the chats
// directories every time. Each watch is kernel memory and one of the
// user's inotify watches (fs.inotify.max_user_watches, shared with every
// other program); a home with that many projects is one no one lists
// often enough for the watches to pay.
const maxWatched = 1024

// listIdle is how long the watches outlive the last List: a client
// refreshing its history view keeps them, a daemon no one asks for Gemini
// history holds no kernel watch.
const listIdle = time.Minute

// refusedRetry is how long List goes on reading the directories after a
// refused watch before it asks for the watches again.
const refusedRetry = 30 * time.Second

// List returns the sessions of dir that have a user message, newest first
// (by the last write to any of their files). A file unchanged since the
// last call is not opened; one that grew is read from where the last call
// stopped; another project's file is known by its first line only.
//
// While the watches of the chats directories say nothing changed since
// the last List of dir, that List's result is returned without reading
// anything. When they cannot be watched every List reads the directories.
// The result is shared with later calls: callers must not modify it.
func (s *Store) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	key := hashes(dir)
	at, watched := s.stamp(ctx)
	if watched {
		s.lmu.Lock()
		l, ok := s.lw.lists[key]
		s.lmu.Unlock()
		if ok && l.at == at {
			return l.list, nil
		}
	}
	// Something changed, or the first List: the directories to watch are
	// found again before the count this List reads under.
	if s.rewatch() || !watched {
		at, watched = s.stamp(ctx)
	}
	list, err := s.list(ctx, dir)
	if err != nil || !watched {
		return list, err
	}
	list = slices.Clip(list)
	s.lmu.Lock()
	// A concurrent List that read under a later stamp keeps its result.
	if l, ok := s.lw.lists[key]; !ok || at.after(l.at) || at == l.at {
		if s.lw.lists == nil {
			s.lw.lists = map[projectHashes]listed{}
		}
		s.lw.lists[key] = listed{at, list}
	}
	s.lmu.Unlock()
	return list, nil
}

// stamp returns the current stamp of the watched directories; watched is
// false when there are none (or one was lost), and List must read.
func (s *Store) stamp(ctx context.Context) (at stamp, watched bool) {
	s.lmu.Lock()
	lw := &s.lw
	if lw.closed {
		s.lmu.Unlock()
		return stamp{}, false
	}
	if lw.timer == nil {
		var t *time.Timer
		t = s.afterFunc(s.idle, func() { s.release(t) })
		lw.timer = t
	} else {
		lw.timer.Reset(s.idle)
	}
	if lw.gens[s.tmp] == nil {
		s.lmu.Unlock()
		return stamp{}, false
	}
	at.epoch = lw.epoch
	gens := make([]*fswatch.Gen, 0, len(lw.gens))
	for _, g := range lw.gens {
		gens = append(gens, g)
	}
	s.lmu.Unlock()
	for _, g := range gens {
		n, err := g.Now(ctx)
		if err != nil && ctx.Err() != nil {
			return stamp{}, false // the call is over; the watches are fine
		}
		if err != nil {
			// Lost (the directory was removed or replaced) or unsure: this
			// List reads, and watches again.
			s.log.Debug("history: chats directory watch lost", zap.Error(err))
			s.drop(g)
			return stamp{}, false
		}
		at.sum += n
	}
	return at, true
}

// drop stops watching g's directory.
func (s *Store) drop(g *fswatch.Gen) {
	s.lmu.Lock()
	for d, h := range s.lw.gens {
		if h == g {
			delete(s.lw.gens, d)
			s.lw.epoch++
		}
	}
	s.lmu.Unlock()
	g.Close()
}

// watchDirs lists the directories to watch (see listWatch).
func (s *Store) watchDirs() ([]string, error) {
	slugs, err := os.ReadDir(s.tmp)
	if err != nil {
		return nil, err
	}
	dirs := []string{s.tmp}
	for _, sl := range slugs {
		if !sl.IsDir() {
			continue // walk lists no chats of it
		}
		slug := filepath.Join(s.tmp, sl.Name())
		chats := filepath.Join(slug, "chats")
		if fi, err := os.Lstat(chats); err == nil && fi.IsDir() {
			dirs = append(dirs, chats)
			continue
		}
		// No chats directory yet, or a link to one: its making or
		// changing is in the slug's directory.
		dirs = append(dirs, slug)
		if fi, err := os.Stat(chats); err == nil && fi.IsDir() {
			dirs = append(dirs, chats)
		}
	}
	return dirs, nil
}

// rewatch makes the watches match the directories there are now; it
// reports whether they changed.
func (s *Store) rewatch() bool {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	lw := &s.lw
	if lw.closed || time.Since(lw.refused) < refusedRetry {
		return false
	}
	dirs, err := s.watchDirs()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No tmp/: nothing to read either.
		return s.unwatchLocked(nil)
	case err != nil:
		s.refuseLocked(err)
		return s.unwatchLocked(nil)
	case len(dirs) > s.maxWatched:
		s.refuseLocked(errors.New("too many project directories to watch"))
		return s.unwatchLocked(nil)
	}
	keep := make(map[string]bool, len(dirs))
	changed := false
	for _, d := range dirs {
		keep[d] = true
		if lw.gens[d] != nil {
			continue
		}
		g, err := fswatch.Or(s.watcher).WatchGen(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since: the count of its parent says so
		}
		if err != nil {
			s.refuseLocked(err)
			return s.unwatchLocked(nil) || changed
		}
		if lw.gens == nil {
			lw.gens = map[string]*fswatch.Gen{}
		}
		lw.gens[d] = g
		changed = true
	}
	return s.unwatchLocked(keep) || changed
}

// refuseLocked notes that watching failed.
func (s *Store) refuseLocked(err error) {
	s.lw.refused = time.Now()
	s.log.Debug("history: cannot watch the Gemini chats directories, so every history call reads them", zap.String("dir", s.tmp), zap.Error(err))
}

// unwatchLocked closes the watches of directories not in keep (all when
// keep is nil), reporting whether there were any.
func (s *Store) unwatchLocked(keep map[string]bool) bool {
	lw := &s.lw
	changed := false
	for d, g := range lw.gens {
		if !keep[d] {
			delete(lw.gens, d)
			g.Close()
			changed = true
		}
	}
	if changed {
		lw.epoch++
	}
	return changed
}

// release drops the watches and the results kept under them, once List has
// not used them for s.idle.
func (s *Store) release(t *time.Timer) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if s.lw.timer != t {
		return // a timer stopped or replaced meanwhile
	}
	s.lw.timer = nil
	s.unwatchLocked(nil)
	s.lw.lists = nil
}

// Close releases the watches List holds; later Lists read the directories.
// The daemon calls it when it shuts down.
func (s *Store) Close() error {
	s.lmu.Lock()
	s.lw.closed = true
	if s.lw.timer != nil {
		s.lw.timer.Stop()
		s.lw.timer = nil
	}
	s.unwatchLocked(nil)
	s.lw.lists = nil
	s.lmu.Unlock()
	s.idx.Close() // the index saves under way; outside lmu, which a reader may hold
	return nil
}
