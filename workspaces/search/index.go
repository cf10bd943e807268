package search

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/workspaces/files"
)

// Freshness.
const (
	// quiet is how long after the last change a rebuild starts: an agent
	// writing a dozen files, or git checking out, costs one rebuild.
	quiet = 300 * time.Millisecond
	// maxWatches bounds the directories one index watches. A tree with more
	// is kept fresh by age instead for the rest (maxAge).
	maxWatches = 8192
	maxAge     = time.Minute
	// idleAfter drops an index nobody queried for this long.
	idleAfter = 10 * time.Minute
)

// entry is one indexed path, prepared for matching.
type entry struct {
	path    string
	lower   string
	name    int32 // offset of the base name
	mask    uint64
	tracked bool
	binary  bool // by its extension (images, archives…)
}

// snapshot is an index's content at one build; never changed once built.
type snapshot struct {
	git     bool
	entries []entry
	byPath  map[string]bool // git work trees only: path → tracked
	built   time.Time
	partial bool // more directories than maxWatches: some are not watched
}

// Index is one workspace's searchable paths, kept fresh.
type Index struct {
	root    string
	watcher *fswatch.Watcher
	log     *zap.Logger

	ready chan struct{} // closed once the first build ended
	err   error         // the first build's error

	mu      sync.Mutex
	snap    *snapshot
	watches map[string]*fswatch.Handle
	stale   bool
	timer   *time.Timer // the pending rebuild
	idle    *time.Timer
	fresh   chan struct{} // closed when the pending rebuild ends
	closed  bool
	cancel  context.CancelFunc
	ctx     context.Context
	running sync.WaitGroup
}

func newIndex(root string, w *fswatch.Watcher, log *zap.Logger) *Index {
	ctx, cancel := context.WithCancel(context.Background())
	return &Index{root: root, watcher: w, log: log, ready: make(chan struct{}), watches: map[string]*fswatch.Handle{},
		ctx: ctx, cancel: cancel}
}

// build lists the workspace's files and swaps them in, then watches the
// directories they are in.
func (x *Index) build() error {
	began := time.Now()
	l, err := load(x.ctx, x.root)
	if err != nil {
		return err
	}
	snap := &snapshot{git: l.git, entries: make([]entry, len(l.paths)), built: time.Now()}
	if l.git {
		snap.byPath = make(map[string]bool, len(l.paths))
	}
	dirs := map[string]bool{"": true}
	for i, p := range l.paths {
		lower := lowerASCII(p)
		e := entry{path: p, lower: lower, name: int32(strings.LastIndexByte(p, '/') + 1), mask: charMask(lower),
			binary: binaryExtensions[files.Extension(p)]}
		if l.git {
			e.tracked = l.tracked[i]
			snap.byPath[p] = e.tracked
		}
		snap.entries[i] = e
		for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	if l.git {
		dirs[".git"] = true // its index: git add, commit and checkout change what is tracked
	}
	snap.partial = len(dirs) > maxWatches
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return nil
	}
	x.snap = snap
	x.mu.Unlock()
	x.rewatch(dirs)
	x.log.Debug("search index built", zap.String("root", x.root), zap.Int("paths", len(snap.entries)),
		zap.Bool("git", l.git), zap.Duration("took", time.Since(began)))
	return nil
}

// rewatch makes the watched directories those of want (the shallowest
// maxWatches of them).
func (x *Index) rewatch(want map[string]bool) {
	list := make([]string, 0, len(want))
	for d := range want {
		list = append(list, d)
	}
	slices.SortFunc(list, func(a, b string) int {
		return strings.Count(a, "/") - strings.Count(b, "/")
	})
	if len(list) > maxWatches {
		list = list[:maxWatches]
	}
	keep := make(map[string]bool, len(list))
	for _, d := range list {
		keep[d] = true
	}
	x.mu.Lock()
	var drop []*fswatch.Handle
	for d, h := range x.watches {
		if !keep[d] {
			drop = append(drop, h)
			delete(x.watches, d)
		}
	}
	var add []string
	for _, d := range list {
		if _, ok := x.watches[d]; !ok {
			add = append(add, d)
		}
	}
	x.mu.Unlock()
	for _, h := range drop {
		h.Close() // outside x.mu: Close waits for the handle's callback, which takes it
	}
	for _, d := range add {
		abs := x.root
		if d != "" {
			abs += "/" + d
		}
		onEvent := func(ev fswatch.Event) { x.changed(d, ev) }
		h, err := x.watcher.Watch(abs, onEvent, func(error) { x.markStale() })
		if err != nil {
			// The directory went meanwhile, or the kernel's watch limit: the
			// next rebuild tries again, and age keeps the index fresh.
			x.mu.Lock()
			if x.snap != nil {
				x.snap.partial = true
			}
			x.mu.Unlock()
			continue
		}
		x.mu.Lock()
		if x.closed {
			x.mu.Unlock()
			h.Close()
			return
		}
		x.watches[d] = h
		x.mu.Unlock()
	}
}

// changed is an event in the watched directory dir.
func (x *Index) changed(dir string, ev fswatch.Event) {
	if dir == ".git" && path.Base(ev.Name) != "index" {
		return // git's other files: refs, logs, locks
	}
	x.markStale()
}

// markStale schedules a rebuild after the quiet time, restarting the wait
// if one is already pending.
func (x *Index) markStale() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return
	}
	if !x.stale {
		x.stale = true
		x.fresh = make(chan struct{})
	}
	if x.timer != nil {
		// Pending: wait the quiet time again. Already fired: the rebuild
		// about to run lists the files after this change anyway (and
		// resetting a fired AfterFunc would run it twice).
		if x.timer.Stop() {
			x.timer.Reset(quiet)
		}
		return
	}
	x.running.Add(1)
	x.timer = time.AfterFunc(quiet, x.rebuild)
}

// rebuild is the pending rebuild; changes made while it runs schedule
// another.
func (x *Index) rebuild() {
	defer x.running.Done()
	x.mu.Lock()
	x.timer = nil
	fresh := x.fresh
	x.stale = false
	x.mu.Unlock()
	if err := x.build(); err != nil && x.ctx.Err() == nil {
		x.log.Info("search index rebuild failed", zap.String("root", x.root), zap.Error(err))
	}
	if fresh != nil {
		close(fresh)
	}
}

// current is the snapshot to answer from; it schedules a rebuild if the
// snapshot is old and not every directory is watched.
func (x *Index) current() *snapshot {
	x.mu.Lock()
	snap := x.snap
	if x.idle != nil {
		x.idle.Reset(idleAfter)
	}
	x.mu.Unlock()
	if snap != nil && snap.partial && time.Since(snap.built) > maxAge {
		x.markStale()
	}
	return snap
}

// Fresh waits (until ctx ends) for a rebuild that changes seen so far
// scheduled, then returns the snapshot.
func (x *Index) Fresh(ctx context.Context) *snapshot {
	x.mu.Lock()
	fresh := x.fresh // closed once the rebuild it stands for ended
	x.mu.Unlock()
	if fresh != nil {
		select {
		case <-fresh:
		case <-ctx.Done():
		}
	}
	return x.current()
}

// Tracked implements files.GitState from snap.
func (s *snapshot) Tracked(rel string) (tracked, ignored bool) {
	t, ok := s.byPath[rel]
	return t, !ok
}

// close drops the index's watches and waits for a rebuild in progress.
func (x *Index) close() {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return
	}
	x.closed = true
	if x.timer != nil && x.timer.Stop() {
		x.running.Done() // the rebuild will not run
	}
	x.timer = nil
	if x.idle != nil {
		x.idle.Stop()
	}
	watches := x.watches
	x.watches = map[string]*fswatch.Handle{}
	x.mu.Unlock()
	x.cancel()
	for _, h := range watches {
		h.Close()
	}
	x.running.Wait()
}

// binaryExtensions are extensions of files that are binary whatever their
// content, so that exclude_binaries needs no read of the index's paths.
var binaryExtensions = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "webp": true, "ico": true, "bmp": true, "tiff": true,
	"pdf": true, "zip": true, "gz": true, "tgz": true, "bz2": true, "xz": true, "zst": true, "7z": true, "rar": true,
	"jar": true, "class": true, "o": true, "a": true, "so": true, "dylib": true, "dll": true, "exe": true,
	"wasm": true, "pyc": true, "woff": true, "woff2": true, "ttf": true, "otf": true, "eot": true,
	"mp3": true, "mp4": true, "mov": true, "avi": true, "wav": true, "ogg": true, "webm": true, "flac": true,
	"sqlite": true, "db": true, "bin": true, "dat": true, "psd": true, "heic": true,
}
