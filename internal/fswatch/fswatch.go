// Package fswatch shares one inotify instance among everything in cdevd
// that watches directories (workspace notices, transcript tails).
//
// The kernel allows a user few instances (fs.inotify.max_user_instances,
// often 128) but many watches. One instance per subscriber used them all up
// with about 130 subscribed workspaces, and then every other program of the
// user failed too. A Watcher holds one fsnotify.Watcher, counts subscribers
// per directory (one kernel watch however many subscribe), and dispatches
// events by directory. Its goroutine and its instance exist only while at
// least one watch does, so an idle daemon holds none.
//
// A Gen (WatchGen) counts the changes to one directory on the same
// instance, so that a listing can be reused while nothing in the directory
// changed; its Now drains the events pending in the kernel first (see
// Gen.Now), so a change made before it is never missed.
package fswatch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// Event is a file system event; Name is the path of the file it is about.
type Event = fsnotify.Event

// Op is the kind of an Event.
type Op = fsnotify.Op

// The Op bits.
const (
	Create = fsnotify.Create
	Write  = fsnotify.Write
	Remove = fsnotify.Remove
	Rename = fsnotify.Rename
	Chmod  = fsnotify.Chmod
)

// ErrOverflow reaches a subscriber whose events were dropped, by the kernel
// or because its callbacks fell too far behind: it should look afresh.
var ErrOverflow = fsnotify.ErrEventOverflow

// maxQueue bounds the events waiting for one subscriber's callback. A
// subscriber that falls this far behind loses events and gets ErrOverflow,
// as it would from the kernel, instead of holding memory without bound.
const maxQueue = 4096

// Config configures a Watcher.
type Config struct {
	// Refuse, when set, is asked before each kernel watch is added; an
	// error refuses the watch as if the kernel had (tests use it to make
	// ENOSPC happen on demand).
	Refuse func(dir string) error
}

// Watcher multiplexes directory watches over one inotify instance.
type Watcher struct {
	cfg Config

	mu   sync.Mutex
	fw   *fsnotify.Watcher // nil while nothing is watched
	done chan struct{}     // closed when fw's dispatcher returned
	dirs map[string]*dir   // by clean path

	gen  uint64   // the last generation handed out (see Gen)
	gens int      // Gens open
	bar  *barrier // while gens > 0 (see Gen.Now)
}

// dir is one watched directory and its subscribers.
type dir struct {
	// live is false once the kernel dropped the watch (the directory was
	// removed or moved): the next Watch of it adds it again.
	live bool
	subs map[*Handle]struct{}

	gens     int    // Gens of the directory
	gen      uint64 // moved by every event in or about it (see Gen)
	dev, ino uint64 // the directory the kernel watch was added on (0: unknown)
}

// New returns a Watcher. It holds no instance until the first Watch.
func New(cfg Config) *Watcher {
	return &Watcher{cfg: cfg, dirs: map[string]*dir{}}
}

var shared = New(Config{})

// Shared is the process's Watcher, used wherever none is injected. The
// limit it protects is per user, and the instance per process: sharing one
// across every adapter and the engine is the point, and since it is lazy it
// costs nothing while unused.
func Shared() *Watcher { return shared }

// Or returns w, or the shared Watcher when w is nil.
func Or(w *Watcher) *Watcher {
	if w == nil {
		return shared
	}
	return w
}

// Watch calls onEvent with each event in directory path (and with events
// about path itself), and onError with each error of the instance, until
// the returned Handle is closed. A subscriber's callbacks run one at a time,
// in order, on a goroutine of their own: a slow subscriber delays only
// itself (up to maxQueue events, then it gets ErrOverflow). Callbacks must
// not call their own Handle's Close.
//
// An error from the kernel (the directory is missing, or a limit is
// reached) is returned as a *Error that says why.
func (w *Watcher) Watch(path string, onEvent func(Event), onError func(error)) (*Handle, error) {
	path = filepath.Clean(path)
	h := &Handle{w: w, dir: path, onEvent: onEvent, onError: onError}
	h.idle = sync.NewCond(&h.mu)

	w.mu.Lock()
	if err := w.startLocked(); err != nil {
		w.mu.Unlock()
		return nil, &Error{Dir: path, Err: err}
	}
	d, err := w.holdLocked(path)
	if err != nil {
		fw, done := w.retireLocked()
		w.mu.Unlock()
		retire(fw, done)
		return nil, &Error{Dir: path, Err: err}
	}
	d.subs[h] = struct{}{}
	w.mu.Unlock()
	return h, nil
}

// startLocked starts the instance if none runs.
func (w *Watcher) startLocked() error {
	if w.fw != nil {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	w.fw, w.done = fw, make(chan struct{})
	go w.dispatch(fw, w.done)
	return nil
}

// holdLocked returns the entry of the watched directory path, adding the
// kernel watch when it has none. The instance runs.
func (w *Watcher) holdLocked(path string) (*dir, error) {
	d := w.dirs[path]
	if d == nil || !d.live {
		// Stat before the watch is added: a directory replaced in between
		// then shows another inode than the one recorded, never the reverse
		// (a recorded inode the watch is not on).
		dev, ino, _ := fileID(path)
		if err := w.add(path); err != nil {
			return nil, err
		}
		if d == nil {
			d = &dir{subs: map[*Handle]struct{}{}}
			w.dirs[path] = d
		}
		d.live, d.dev, d.ino = true, dev, ino
		w.bumpLocked(d) // what it held before the watch is no one's
	}
	return d, nil
}

// unholdLocked drops the entry of path, and its kernel watch, when nothing
// uses it any more.
func (w *Watcher) unholdLocked(path string, d *dir) {
	if len(d.subs) > 0 || d.gens > 0 || w.dirs[path] != d {
		return
	}
	delete(w.dirs, path)
	if d.live {
		// A watch the kernel already dropped is not an error.
		_ = w.fw.Remove(path)
	}
}

func (w *Watcher) add(path string) error {
	if w.cfg.Refuse != nil {
		if err := w.cfg.Refuse(path); err != nil {
			return err
		}
	}
	return w.fw.Add(path)
}

// bumpLocked gives d a new generation.
func (w *Watcher) bumpLocked(d *dir) {
	w.gen++
	d.gen = w.gen
}

// retireLocked detaches the instance when nothing is watched any more; the
// caller closes it with retire once w.mu is released (the dispatcher takes
// w.mu, so waiting for it under the lock could deadlock).
func (w *Watcher) retireLocked() (*fsnotify.Watcher, chan struct{}) {
	if len(w.dirs) > 0 || w.bar != nil || w.fw == nil {
		return nil, nil
	}
	fw, done := w.fw, w.done
	w.fw, w.done = nil, nil
	return fw, done
}

func retire(fw *fsnotify.Watcher, done chan struct{}) {
	if fw == nil {
		return
	}
	fw.Close() // closes Events and Errors, which ends the dispatcher
	<-done
}

// dispatch hands fw's events and errors to the subscribers until fw closes.
// It never waits for a callback: each subscriber has its own queue.
func (w *Watcher) dispatch(fw *fsnotify.Watcher, done chan struct{}) {
	defer close(done)
	events, errs := fw.Events, fw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.route(fw, ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			w.fanError(fw, err)
		}
	}
}

// fanError queues err for every subscriber: an error of the instance may
// have lost any of their events.
func (w *Watcher) fanError(fw *fsnotify.Watcher, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fw != fw {
		return
	}
	// Events may be lost: every directory may have changed, and the
	// barrier's marker event may be among them.
	w.failBarrierLocked(err)
	for _, d := range w.dirs {
		w.bumpLocked(d)
		for h := range d.subs {
			h.push(item{err: err})
		}
	}
}

// Fail acts as if the instance had reported err (an overflow of the
// kernel's queue, say): every watched directory's count moves, Gen.Now
// rounds in flight fail, and every subscriber gets err. For tests of code
// that must survive lost events, which the kernel loses only under a load
// no test can make on demand.
func (w *Watcher) Fail(err error) {
	w.mu.Lock()
	fw := w.fw
	w.mu.Unlock()
	if fw != nil {
		w.fanError(fw, err)
	}
}

// route queues ev for the subscribers of the directory it happened in, and
// for those of the directory it is about when that one is watched itself.
func (w *Watcher) route(fw *fsnotify.Watcher, ev Event) {
	name := filepath.Clean(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fw != fw {
		return // from an instance already retired
	}
	if w.bar != nil && w.bar.route(w, name, ev) {
		return
	}
	if d := w.dirs[filepath.Dir(name)]; d != nil {
		w.bumpLocked(d)
		for h := range d.subs {
			h.push(item{ev: ev})
		}
	}
	if d := w.dirs[name]; d != nil {
		w.bumpLocked(d)
		if ev.Has(Remove) || ev.Has(Rename) {
			d.live = false // fsnotify dropped the watch with the directory
		}
		for h := range d.subs {
			h.push(item{ev: ev})
		}
	}
}

// Handle is one subscription.
type Handle struct {
	w       *Watcher
	dir     string
	onEvent func(Event)
	onError func(error)

	mu       sync.Mutex
	idle     *sync.Cond // signalled when running turns false
	queue    []item
	overflow bool // events were dropped since the last delivery
	running  bool // a goroutine is delivering the queue
	closed   bool
	once     sync.Once
}

type item struct {
	ev  Event
	err error
}

// push queues it and starts a delivering goroutine if none runs. Called
// with w.mu held; never blocks on a callback.
func (h *Handle) push(it item) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if len(h.queue) >= maxQueue {
		h.overflow = true
		return
	}
	h.queue = append(h.queue, it)
	if !h.running {
		h.running = true
		go h.deliver()
	}
}

// deliver runs the callbacks until the queue is empty. The goroutine ends
// then: an idle subscriber costs no goroutine.
func (h *Handle) deliver() {
	h.mu.Lock()
	for len(h.queue) > 0 && !h.closed {
		it := h.queue[0]
		h.queue[0] = item{}
		h.queue = h.queue[1:]
		overflow := h.overflow && len(h.queue) == 0
		if overflow {
			h.overflow = false
		}
		h.mu.Unlock()
		if it.err != nil {
			h.onError(it.err)
		} else {
			h.onEvent(it.ev)
		}
		if overflow {
			h.onError(ErrOverflow)
		}
		h.mu.Lock()
	}
	h.queue = nil
	h.running = false
	h.idle.Broadcast()
	h.mu.Unlock()
}

// Close ends the subscription: the kernel watch goes with the directory's
// last subscriber, and the instance with the last watch. When Close
// returns no callback of h runs or will run. Closing twice is harmless.
func (h *Handle) Close() error {
	h.once.Do(func() {
		w := h.w
		w.mu.Lock()
		if d := w.dirs[h.dir]; d != nil {
			delete(d.subs, h)
			w.unholdLocked(h.dir, d)
		}
		fw, done := w.retireLocked()
		w.mu.Unlock()
		retire(fw, done)

		h.mu.Lock()
		h.closed = true
		for h.running {
			h.idle.Wait()
		}
		h.mu.Unlock()
	})
	return nil
}

// Error is a watch the system refused.
type Error struct {
	Dir string
	Err error
}

func (e *Error) Error() string { return "watch " + e.Dir + ": " + e.Reason() }

func (e *Error) Unwrap() error { return e.Err }

// Reason says why the watch was refused, and for the kernel's limits, which
// one and how to raise it.
func (e *Error) Reason() string {
	switch {
	case errors.Is(e.Err, syscall.ENOSPC):
		return "the system's limit on inotify watches is reached (fs.inotify.max_user_watches = " +
			sysctl("max_user_watches") + "); raise it with sysctl or stop other programs that watch files"
	case errors.Is(e.Err, syscall.EMFILE):
		return "the system's limit on inotify instances is reached (fs.inotify.max_user_instances = " +
			sysctl("max_user_instances") + "); raise it with sysctl or stop other programs that watch files"
	case errors.Is(e.Err, syscall.ENFILE):
		return "the system is out of file descriptors"
	}
	return e.Err.Error()
}

// sysctl reads an inotify limit, for the error message.
func sysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/fs/inotify/" + name)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// Instances counts the inotify instances this process holds, or returns -1
// where that cannot be read. Tests and the soak benchmark use it.
func Instances() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range entries {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}
