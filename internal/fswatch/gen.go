package fswatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Gen counts the changes to one directory and its entries, on the
// Watcher's one inotify instance: while Now returns the same number, no
// entry of the directory was created, removed, renamed, written to,
// truncated or touched, nor the directory itself removed, moved or
// replaced. A listing read under one number therefore still holds while
// Now returns it, and need not be read again.
//
// Only changes inotify reports are counted: a directory on a network file
// system changed by another host, writes through a shared memory mapping,
// and writes through a hard link in another directory are not. Callers
// must accept that limit (transcripts are appended with write(2) by a CLI
// on the same host).
type Gen struct {
	w      *Watcher
	dir    string
	once   sync.Once
	closed bool // under w.mu
}

// ErrLost is the error of Now once its count no longer follows the path:
// the directory was removed, moved or replaced (or the count is otherwise
// untrustworthy). Close the Gen and watch the path again.
var ErrLost = errors.New("the directory watch no longer follows its path")

// syncTimeout bounds a wait for the barrier's marker event. The marker can
// only fail to arrive when its directory was taken away (a temp cleaner);
// Now then fails, callers read the directory, and the next Now starts a new
// barrier. It is no timing assumption about correctness: a late marker
// only costs a read.
const syncTimeout = 2 * time.Second

// WatchGen starts counting the changes to directory path. It adds a kernel
// watch of path when none is there (shared with Watch's subscribers) and,
// for the first Gen, one of a private directory (see Now). A refused watch
// is a *Error, like Watch's: callers fall back to reading the directory.
func (w *Watcher) WatchGen(path string) (*Gen, error) {
	path = filepath.Clean(path)
	// A folder that does not exist yet is common (a workspace with no
	// sessions): refused before an instance and a barrier are made for
	// nothing.
	if _, err := os.Stat(path); err != nil {
		return nil, &Error{Dir: path, Err: err}
	}
	w.mu.Lock()
	err := w.startLocked()
	if err == nil {
		err = w.barrierLocked()
	}
	var d *dir
	if err == nil {
		d, err = w.holdLocked(path)
	}
	if err != nil {
		if w.gens == 0 {
			w.dropBarrierLocked(ErrLost)
		}
		fw, done := w.retireLocked()
		w.mu.Unlock()
		retire(fw, done)
		return nil, &Error{Dir: path, Err: err}
	}
	d.gens++
	w.gens++
	w.mu.Unlock()
	return &Gen{w: w, dir: path}, nil
}

// Now returns the directory's current generation: every change made
// before Now was called, by any process, is counted in it (see Gen for
// what inotify does not report).
//
// inotify queues an event before the changing call returns, but the
// instance's reader delivers it later. Now therefore first makes a change
// of its own, to a marker file in a private directory watched on the same
// instance, and waits until the dispatcher routes its event: one instance
// has one queue, read in order, and the dispatcher routes events in that
// order, bumping generations as it goes, so every change made before the
// marker's was counted by then. This costs one write(2) and a wake-up of
// the reader, where reading the queue directly would need the instance's
// descriptor, which fsnotify owns. Concurrent callers share rounds: a
// caller that arrives while a marker is in flight waits for the next one,
// since its changes may postdate the marker in flight.
func (g *Gen) Now(ctx context.Context) (uint64, error) {
	w := g.w
	if err := w.sync(ctx); err != nil {
		return 0, err
	}
	dev, ino, ok := fileID(g.dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	if g.closed {
		return 0, ErrLost
	}
	d := w.dirs[g.dir]
	// A directory replaced without an event of its own (its parent was
	// moved, say) shows another inode than the watch's.
	if d == nil || !d.live || !ok || d.dev != dev || d.ino != ino || d.ino == 0 {
		return 0, ErrLost
	}
	return d.gen, nil
}

// Seen returns the directory's generation as counted so far, without a
// barrier of its own and without checking that the path still names the
// watched directory. It is for a tree of watched directories: one Now (of
// the tree's root) makes the barrier for all of them, and a directory
// replaced inside the tree changes its watched parent, so only the root
// needs Now's check of its identity. The count it returns is exact only
// right after such a Now.
func (g *Gen) Seen() (uint64, error) {
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.dirs[g.dir]
	if g.closed || d == nil || !d.live {
		return 0, ErrLost
	}
	return d.gen, nil
}

// Close ends the count; the kernel watches go when no one uses them, and
// the instance with the last of them. Closing twice is harmless.
func (g *Gen) Close() error {
	g.once.Do(func() {
		w := g.w
		w.mu.Lock()
		g.closed = true
		if d := w.dirs[g.dir]; d != nil {
			d.gens--
			w.unholdLocked(g.dir, d)
		}
		w.gens--
		if w.gens == 0 {
			w.dropBarrierLocked(ErrLost)
		}
		fw, done := w.retireLocked()
		w.mu.Unlock()
		retire(fw, done)
	})
	return nil
}

// barrier is the private directory and marker file of Now's rounds.
type barrier struct {
	dir, marker string
	f           *os.File
	cur, next   *round // the round whose marker is in flight; the one after
}

type round struct {
	done chan struct{}
	err  error
}

func newRound() *round { return &round{done: make(chan struct{})} }

func (r *round) end(err error) {
	r.err = err
	close(r.done)
}

var markerByte = []byte{0}

// poke changes the marker, which queues an IN_MODIFY event. Rounds never
// overlap, so the previous marker event was read before this one is
// queued: the kernel cannot merge the two.
func (b *barrier) poke() error {
	_, err := b.f.WriteAt(markerByte, 0)
	return err
}

// barrierLocked makes the barrier if there is none: a private directory,
// watched on the instance, holding the marker file.
func (w *Watcher) barrierLocked() error {
	if w.bar != nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "cdevd-fswatch-")
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	marker := filepath.Join(dir, "marker")
	f, err := os.OpenFile(marker, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err = w.add(dir); err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	w.bar = &barrier{dir: dir, marker: marker, f: f}
	return nil
}

// dropBarrierLocked ends the barrier's rounds with err and removes it; the
// next Now makes a new one (its marker events have another name, so any
// of the old barrier still queued are ignored).
func (w *Watcher) dropBarrierLocked(err error) {
	b := w.bar
	if b == nil {
		return
	}
	w.bar = nil
	for _, r := range []*round{b.cur, b.next} {
		if r != nil {
			r.end(err)
		}
	}
	// Removing the directory drops its kernel watch; fw.Remove is not
	// called because this runs on the dispatcher too, which fsnotify's
	// reader may be waiting for while holding the lock Remove takes.
	b.f.Close()
	os.RemoveAll(b.dir)
}

// failBarrierLocked is dropBarrierLocked for a barrier whose marker event
// may be lost (the queue overflowed, the instance failed).
func (w *Watcher) failBarrierLocked(err error) {
	if w.bar != nil {
		w.dropBarrierLocked(errors.Join(ErrLost, err))
	}
}

// route takes the barrier's events: the marker's ends the round in flight
// and starts the next one if anyone waits for it. It reports whether ev was
// the barrier's.
func (b *barrier) route(w *Watcher, name string, ev Event) bool {
	switch {
	case name == b.dir:
		// The private directory went away: no marker event will come.
		if ev.Has(Remove) || ev.Has(Rename) {
			w.dropBarrierLocked(ErrLost)
		}
		return true
	case filepath.Dir(name) != b.dir:
		return false
	case name != b.marker || b.cur == nil:
		return true
	}
	b.cur.end(nil)
	b.cur, b.next = b.next, nil
	if b.cur != nil {
		if err := b.poke(); err != nil {
			w.dropBarrierLocked(errors.Join(ErrLost, err))
		}
	}
	return true
}

// sync returns once every change made before it was called has been
// routed (see Gen.Now).
func (w *Watcher) sync(ctx context.Context) error {
	w.mu.Lock()
	if w.gens == 0 || w.fw == nil {
		w.mu.Unlock()
		return ErrLost
	}
	if err := w.barrierLocked(); err != nil {
		w.mu.Unlock()
		return errors.Join(ErrLost, err)
	}
	b := w.bar
	var r *round
	if b.cur == nil {
		r = newRound()
		b.cur = r
		if err := b.poke(); err != nil {
			w.dropBarrierLocked(errors.Join(ErrLost, err))
		}
	} else {
		if b.next == nil {
			b.next = newRound()
		}
		r = b.next
	}
	w.mu.Unlock()
	timer := time.NewTimer(syncTimeout)
	defer timer.Stop()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		w.mu.Lock()
		if w.bar == b {
			w.dropBarrierLocked(ErrLost)
		}
		w.mu.Unlock()
		return errors.Join(ErrLost, errors.New("the barrier's marker event did not come"))
	}
}
