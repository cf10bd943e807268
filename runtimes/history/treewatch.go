package history

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/runtimes"
)

// maxWatchedDirs bounds the folders of a date tree List watches. Each is
// one inotify watch, counted against the user's
// fs.inotify.max_user_watches, which every program of the user (editors,
// file managers, other daemons) shares, and which is 8,192 on many
// systems; a year of daily use is about 380 folders (root, years, months,
// days). Above the bound List stats every file instead, as it does when
// the system refuses a watch.
const maxWatchedDirs = 1024

// treeListing is List's last result for one directory.
type treeListing struct {
	at   uint64 // the tree's generation it was read under
	list []runtimes.Summary
}

// listIdle is how long a tree's watches outlive its last List: a client
// refreshing its history view keeps them, a workspace no one looks at any
// more holds no kernel watch.
const listIdle = time.Minute

// refusedRetry is how long List goes on reading a tree whose watch was
// refused before it asks for the watch again.
const refusedRetry = 30 * time.Second

// tree is List's watch of the folders under one root: a change counter for
// every folder of it (root, years, months, days: a CLI files a session
// under the day it was created but appends to it on every resume), or of
// the one folder of a directory's sessions.
type tree struct {
	root    string
	gens    map[string]*fswatch.Gen // by folder; empty: not watched
	ver     uint64                  // moved whenever gens changes, never the same twice (Tree.vers)
	refused time.Time               // when watching was last refused
	timer   *time.Timer             // releases the tree once List is idle
	lists   map[string]*treeListing // by directory, as asked
	found   *treeFound              // the last Files result: one, so that it pins no old index for long
}

// treeFound is a session's files as Files found them under a generation.
type treeFound struct {
	at      uint64
	dir, id string
	files   any // []File[P]
}

// generation returns the current generation of the tree under root: one
// barrier (Now of the root) then the count of every folder, whose largest
// value moves whenever any of them changes (fswatch's counts come from one
// increasing counter). ver is the set of folders it covers; watched is
// false when List must read the tree. Only List (start) watches a tree
// and keeps it watched: Files uses the watches List holds, so that a page
// holds no kernel watch of its own.
func (t *Tree[T, P]) generation(ctx context.Context, root string, start bool) (gen, ver uint64, watched bool) {
	t.lmu.Lock()
	tr := t.trees[root]
	if t.closed || (tr == nil && !start) {
		t.lmu.Unlock()
		return 0, 0, false
	}
	if tr == nil {
		tr = &tree{root: root, gens: map[string]*fswatch.Gen{}, lists: map[string]*treeListing{}}
		tr.timer = t.afterFunc(t.idle, func() { t.release(tr) })
		t.trees[root] = tr
	} else if start {
		tr.timer.Reset(t.idle)
	}
	if start && len(tr.gens) == 0 && time.Since(tr.refused) >= refusedRetry {
		g, err := fswatch.Or(t.watcher).WatchGen(root)
		switch {
		case err == nil:
			tr.gens[root] = g
			t.moved(tr)
			t.lmu.Unlock()
			// The tree's folders are watched before a first read, so that
			// its result is kept (a folder watched only after the read may
			// have changed before its watch).
			dirs, _ := t.walk(ctx, root, "", nil)
			t.track(root, dirs, 0, 0, false, nil)
			return t.generation(ctx, root, true)
		case errors.Is(err, fs.ErrNotExist):
			// No sessions yet: nothing to read either.
		default:
			t.refuseLocked(tr, err)
		}
	}
	rg := tr.gens[root]
	if rg == nil {
		t.lmu.Unlock()
		return 0, 0, false
	}
	ver = tr.ver
	others := make([]*fswatch.Gen, 0, len(tr.gens)-1)
	for d, g := range tr.gens {
		if d != root {
			others = append(others, g)
		}
	}
	t.lmu.Unlock()
	gen, err := rg.Now(ctx)
	if err != nil {
		if ctx.Err() == nil {
			// The tree was removed or replaced, or the count is unsure:
			// this List reads it, the next one watches it afresh.
			t.log.Debug("history: "+t.f.What+"s watch lost", zap.String("dir", root), zap.Error(err))
			t.unwatch(root, ver)
		}
		return 0, 0, false
	}
	var lost []*fswatch.Gen
	for _, g := range others {
		n, err := g.Seen()
		if err != nil {
			lost = append(lost, g)
			continue
		}
		gen = max(gen, n)
	}
	if len(lost) > 0 {
		// Folders removed or moved (their parents changed too): this List
		// reads the tree, and watches afresh those still there.
		t.lmu.Lock()
		for d, g := range tr.gens {
			if slices.Contains(lost, g) {
				delete(tr.gens, d)
				t.moved(tr)
			}
		}
		t.lmu.Unlock()
		closeAll(lost)
		return 0, 0, false
	}
	return gen, ver, true
}

// moved gives tr a new version: its set of folders changed.
func (t *Tree[T, P]) moved(tr *tree) {
	t.vers++
	tr.ver = t.vers
}

// refuseLocked gives up watching tr for refusedRetry.
func (t *Tree[T, P]) refuseLocked(tr *tree, err error) {
	tr.refused = time.Now()
	t.log.Debug("history: cannot watch the "+t.f.What+"s folders, so every history call reads them and stats each "+t.f.What,
		zap.String("dir", tr.root), zap.Error(err))
}

// unwatch drops every watch of the tree under root if its set of folders
// is still ver.
func (t *Tree[T, P]) unwatch(root string, ver uint64) {
	t.lmu.Lock()
	tr := t.trees[root]
	if tr == nil || tr.ver != ver {
		t.lmu.Unlock()
		return
	}
	gens := t.dropLocked(tr)
	t.lmu.Unlock()
	closeAll(gens)
}

// dropLocked forgets tr's watches and listings, returning the watches for
// the caller to close once t.lmu is released.
func (t *Tree[T, P]) dropLocked(tr *tree) []*fswatch.Gen {
	gens := make([]*fswatch.Gen, 0, len(tr.gens))
	for _, g := range tr.gens {
		gens = append(gens, g)
	}
	clear(tr.gens)
	clear(tr.lists)
	tr.found = nil
	t.moved(tr)
	return gens
}

func closeAll(gens []*fswatch.Gen) {
	for _, g := range gens {
		g.Close()
	}
}

// release drops tr and its watches once List has not used them for the
// idle time.
func (t *Tree[T, P]) release(tr *tree) {
	t.lmu.Lock()
	if t.trees[tr.root] != tr {
		t.lmu.Unlock()
		return
	}
	delete(t.trees, tr.root)
	gens := t.dropLocked(tr)
	t.lmu.Unlock()
	closeAll(gens)
}

// Close releases the watches List holds (later Lists read the folders and
// stat every file) and waits for the index saves under way. The daemon
// calls it when it shuts down.
func (t *Tree[T, P]) Close() error {
	t.lmu.Lock()
	t.closed = true
	var gens []*fswatch.Gen
	for _, tr := range t.trees {
		tr.timer.Stop()
		gens = append(gens, t.dropLocked(tr)...)
	}
	clear(t.trees)
	t.lmu.Unlock()
	closeAll(gens)
	t.cache.Close()
	return nil
}

// track makes the watches of the tree under root the folders dirs that a
// read found, and calls keep (List's or Files') to keep what was read when
// every one of them was watched under generation gen (ver unchanged): a
// folder watched only now may have changed before its watch, so that
// result is not kept, and the next call reads the tree once more.
func (t *Tree[T, P]) track(root string, dirs []string, gen, ver uint64, watched bool, keep func(tr *tree)) {
	t.lmu.Lock()
	tr := t.trees[root]
	if t.closed || tr == nil || tr.gens[root] == nil {
		t.lmu.Unlock()
		return
	}
	drop, err := t.watchLocked(tr, dirs)
	if err != nil {
		drop = append(drop, t.dropLocked(tr)...)
		t.refuseLocked(tr, err)
	} else if watched && tr.ver == ver && keep != nil {
		keep(tr)
	}
	t.lmu.Unlock()
	closeAll(drop)
}

// watchLocked makes tr's watches those of the folders dirs, returning the
// watches it no longer needs, for the caller to close, or why it cannot
// watch them all.
func (t *Tree[T, P]) watchLocked(tr *tree, dirs []string) ([]*fswatch.Gen, error) {
	if len(dirs) > t.l.MaxWatchedDirs {
		return nil, errors.New("more folders than the tree watches")
	}
	found := make(map[string]bool, len(dirs))
	changed := false
	for _, d := range dirs {
		found[d] = true
		if tr.gens[d] != nil {
			continue
		}
		g, err := fswatch.Or(t.watcher).WatchGen(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since it was read: its parent changed
		}
		if err != nil {
			return nil, err
		}
		tr.gens[d] = g
		changed = true
	}
	var drop []*fswatch.Gen
	for d, g := range tr.gens {
		if !found[d] && d != tr.root {
			delete(tr.gens, d)
			drop = append(drop, g)
			changed = true
		}
	}
	if changed {
		t.moved(tr)
	}
	return drop, nil
}

// Watch calls changed with the id of each session of dir whose file is
// written in dir's folder, or, in a date tree, in today's day folder (local
// time, as Codex files them; with Group, see watchFolders), until the
// Closer is closed. At midnight it moves on to the new day's folder.
// A session resumed from an older day appends to its old file, which this
// does not see; cdevd reports the sessions it runs itself from their
// events.
func (t *Tree[T, P]) Watch(dir string, changed func(id string)) (io.Closer, error) {
	if t.byDir.Folder != nil {
		return t.byDir.Watch(dir, changed)
	}
	if t.l.Group != nil {
		return t.watchFolders(dir, changed)
	}
	w := &dayWatch[T, P]{t: t, dir: dir, changed: changed}
	if err := w.aim(); err != nil {
		return nil, err
	}
	return w, nil
}

type dayWatch[T any, P Index[T]] struct {
	t       *Tree[T, P]
	dir     string
	changed func(id string)

	mu     sync.Mutex
	files  *fswatch.Files
	timer  *time.Timer
	closed bool
}

// aim watches the current day's folder and sets the timer for the next.
func (w *dayWatch[T, P]) aim() error {
	now := time.Now()
	f, err := fswatch.Or(w.t.watcher).WatchFiles(w.t.dayDir(now), w.onFile, nil)
	if err != nil {
		return err
	}
	y, m, d := now.Date()
	// A little past midnight, so that the new day is the one computed.
	next := time.Date(y, m, d+1, 0, 0, 1, 0, now.Location()).Sub(now)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		f.Close()
		return nil
	}
	old := w.files
	w.files = f
	w.timer = time.AfterFunc(next, w.rollOver)
	if old != nil {
		old.Close() // on the timer's goroutine, not a callback of old
	}
	return nil
}

func (w *dayWatch[T, P]) rollOver() {
	if err := w.aim(); err != nil {
		w.t.log.Warn("cannot watch the new day's "+w.t.f.What+"s", zap.Error(err))
	}
}

func (w *dayWatch[T, P]) onFile(path string) {
	id := w.t.l.ID(filepath.Base(path))
	if id == "" {
		return
	}
	// Remember where it is: List and Locate need not walk for it.
	w.t.remember(id, path)
	if _, err := w.t.Path(w.dir, id); err == nil {
		w.changed(id)
	}
}

// Close stops watching; no changed call runs once it returns.
func (w *dayWatch[T, P]) Close() error {
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	f := w.files
	w.mu.Unlock()
	if f != nil {
		f.Close()
	}
	return nil
}
