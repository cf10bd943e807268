package gitops

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// A tree watch reports what changes in a workspace's folder, for the
// workspace events (file_changed, git_status_changed). inotify watches one
// folder at a time, so every folder of the tree is watched, through the
// daemon's one instance, except what git ignores (build output,
// node_modules) and .git's internals: of .git only the changes that move
// the status are followed (HEAD, the index, refs), not objects or logs.

// Watch limits and pace.
const (
	// maxWatchedDirs bounds the kernel watches one workspace takes (the
	// user's fs.inotify.max_user_watches is shared with every program);
	// past it, changes in the folders left out show up only through git's
	// status (the index, HEAD) and the next look.
	maxWatchedDirs = 4096
	// watchDebounce gathers a burst of writes (an agent's edit, a build, a
	// checkout) into one report.
	watchDebounce = 300 * time.Millisecond
	// maxReportedFiles bounds the files of one report; a checkout of
	// thousands is "the status changed", not thousands of events.
	maxReportedFiles = 200
)

// FileChange is one file's change in a report.
type FileChange struct {
	Path   string // relative to the watched folder
	Change string // created, modified or deleted
	Size   int64  // -1 when deleted
}

// Report is a debounced batch: the files that changed (at most
// maxReportedFiles; More says some were left out) and whether the
// repository's status may have changed.
type Report struct {
	Files []FileChange
	More  bool
	Git   bool
}

// TreeWatch watches one folder's tree until closed.
type TreeWatch struct {
	fw     *fswatch.Watcher
	root   string
	report func(Report)
	delay  time.Duration

	mu      sync.Mutex
	handles map[string]*fswatch.Handle // by folder
	pending map[string]string          // path → change, since the last report
	more    bool
	git     bool
	timer   *time.Timer
	closed  bool
	firing  sync.WaitGroup
	walking sync.WaitGroup // the first walk of the tree
	walked  chan struct{}  // closed when it is done
}

// WatchTree starts watching dir (a workspace's folder), calling report
// with each debounced batch from a goroutine of its own.
func (g *Git) WatchTree(ctx context.Context, fw *fswatch.Watcher, dir string, report func(Report)) (*TreeWatch, error) {
	t := &TreeWatch{fw: fswatch.Or(fw), root: dir, report: report, delay: watchDebounce,
		handles: map[string]*fswatch.Handle{}, pending: map[string]string{}, walked: make(chan struct{})}
	if err := t.watch(dir); err != nil {
		return nil, err
	}
	for _, sub := range []string{".git", ".git/refs/heads"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err == nil && fi.IsDir() {
			_ = t.watch(filepath.Join(dir, sub)) // best effort: the tree is watched without it
		}
	}
	// The rest of the tree in the background: asking git what it ignores
	// and walking thousands of folders would hold up the subscribe that
	// started the watch. Changes there meanwhile reach git's status.
	t.walking.Add(1)
	go func() {
		defer t.walking.Done()
		defer close(t.walked)
		t.addTree(dir, g.ignoredDirs(ctx, dir))
	}()
	return t, nil
}

// ignoredDirs lists the folders git ignores in dir (none outside a
// repository), so that build output is not watched.
func (g *Git) ignoredDirs(ctx context.Context, dir string) map[string]bool {
	out, err := g.run(ctx, call{dir: dir, args: []string{"ls-files", "--others", "--ignored",
		"--exclude-standard", "--directory", "-z"}})
	set := map[string]bool{}
	if err != nil || out.exit != 0 {
		return set
	}
	for _, p := range bytes.Split(out.out, []byte{0}) {
		if s := string(p); strings.HasSuffix(s, "/") {
			set[filepath.Join(dir, strings.TrimSuffix(s, "/"))] = true
		}
	}
	return set
}

// addTree watches the folders under top, up to the limit.
func (t *TreeWatch) addTree(top string, ignored map[string]bool) {
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != top && (d.Name() == ".git" || ignored[p]) {
			return filepath.SkipDir
		}
		if err := t.watch(p); err != nil {
			return filepath.SkipAll // the limit, or the kernel's
		}
		return nil
	})
}

// watch adds one folder.
func (t *TreeWatch) watch(dir string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fs.ErrClosed
	}
	if _, ok := t.handles[dir]; ok {
		return nil
	}
	if len(t.handles) >= maxWatchedDirs {
		return errTooManyDirs
	}
	h, err := t.fw.Watch(dir, t.onEvent, func(error) { t.mark(true) })
	if err != nil {
		return err
	}
	t.handles[dir] = h
	return nil
}

var errTooManyDirs = errors.New("too many folders to watch")

// onEvent sorts one event: a .git internal that moves the status, a file
// of the tree, or a new folder to watch.
func (t *TreeWatch) onEvent(ev fswatch.Event) {
	rel, err := filepath.Rel(t.root, ev.Name)
	if err != nil || rel == "." || ev.Op == fswatch.Chmod {
		return
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		name := strings.TrimPrefix(rel, ".git/")
		if name == "HEAD" || name == "index" || name == "MERGE_HEAD" || strings.HasPrefix(name, "refs/") {
			t.mark(true)
		}
		return
	}
	change := "modified"
	switch {
	case ev.Op&(fswatch.Remove|fswatch.Rename) != 0:
		// A rename reaches the old name as Rename (it is gone from there)
		// and the new one as Create.
		change = "deleted"
		t.forget(ev.Name)
	case ev.Op&fswatch.Create != 0:
		change = "created"
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			t.addTree(ev.Name, nil) // files made in it before the watch: the next status shows them
			t.mark(true)
			return
		}
	}
	t.mu.Lock()
	if t.pending[rel] != "created" || change == "deleted" {
		t.pending[rel] = change
	}
	t.mu.Unlock()
	t.mark(false)
}

// forget drops the watches of a folder that went away (the kernel dropped
// them), so that a folder made again under the name is watched again. The
// handles close on another goroutine: this may be one of their callbacks.
func (t *TreeWatch) forget(dir string) {
	t.mu.Lock()
	var gone []*fswatch.Handle
	for d, h := range t.handles {
		if d == dir || strings.HasPrefix(d, dir+"/") {
			gone = append(gone, h)
			delete(t.handles, d)
		}
	}
	t.mu.Unlock()
	if len(gone) > 0 {
		go func() {
			for _, h := range gone {
				h.Close()
			}
		}()
	}
}

// mark schedules a report; git says the status may have moved.
func (t *TreeWatch) mark(git bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.git = t.git || git
	if t.timer != nil {
		return // the burst's report is already due; it takes this too
	}
	t.timer = time.AfterFunc(t.delay, t.fire)
}

// fire sends the pending report.
func (t *TreeWatch) fire() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.firing.Add(1)
	defer t.firing.Done()
	r := Report{Git: t.git}
	for p, c := range t.pending {
		if len(r.Files) == maxReportedFiles {
			r.More = true
			break
		}
		r.Files = append(r.Files, FileChange{Path: p, Change: c, Size: -1})
	}
	t.pending, t.git, t.timer = map[string]string{}, false, nil
	t.mu.Unlock()
	for i := range r.Files {
		if r.Files[i].Change == "deleted" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(t.root, r.Files[i].Path)); err == nil {
			r.Files[i].Size = fi.Size()
		} else {
			r.Files[i].Change = "deleted" // gone again before the report
		}
	}
	if len(r.Files) > 0 {
		r.Git = true // a file of the tree moved: its status may have too
	}
	t.report(r)
}

// Close ends the watch; when it returns no report runs or will run.
func (t *TreeWatch) Close() error {
	t.mu.Lock()
	t.closed = true
	if t.timer != nil {
		t.timer.Stop()
	}
	handles := mapValues(t.handles)
	t.handles = nil
	t.mu.Unlock()
	t.walking.Wait() // it stops at its next folder: watch refuses once closed
	for _, h := range handles {
		h.Close()
	}
	t.firing.Wait()
	return nil
}

// Walked is closed once the whole tree is watched (the first walk runs in
// the background).
func (t *TreeWatch) Walked() <-chan struct{} { return t.walked }

func mapValues(m map[string]*fswatch.Handle) []*fswatch.Handle {
	out := make([]*fswatch.Handle, 0, len(m))
	for _, h := range m {
		out = append(out, h)
	}
	return out
}
