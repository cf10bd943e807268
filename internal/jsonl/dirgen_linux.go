package jsonl

import (
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirEvents are the changes to a directory or its entries that can change
// what a listing of it reports: an entry created, removed, renamed, written
// to, truncated or touched, and the directory itself going away.
const dirEvents = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR

// dirWatch is one watched directory: the inode the watch is on and the
// generation its changes last moved it to.
type dirWatch struct {
	wd       int
	dev, ino uint64
	gen      uint64
}

// dirChanges is an inotify instance behind DirGen. It has no goroutine:
// DirGen drains the queue itself, without blocking, so that an event is
// counted by the first DirGen that follows the change.
type dirChanges struct {
	mu    sync.Mutex
	fd    int // 0: not opened yet; -1: inotify is unavailable
	byDir map[string]*dirWatch
	byWD  map[int]string
	gen   uint64 // the last generation handed out
	buf   []byte
}

// changes is the process's one instance: one file descriptor, however
// many Stores list directories.
var changes dirChanges

// DirGen returns the generation of directory dir's contents: while it
// returns the same number, no entry of dir was created, removed, renamed,
// written to or touched, nor dir replaced, so that what was read of dir
// under that number still holds. The kernel queues the event of a change
// before the changing call returns and DirGen reads the queue
// synchronously, so a change made before DirGen is called is never missed.
// ok is false when dir cannot be watched (inotify unavailable, out of
// watches, dir missing): callers must then read the directory.
//
// Only changes made through this kernel are seen: a directory on a network
// file system changed by another host is not; nor are writes through a
// shared memory mapping or through a hard link in another directory, which
// inotify does not report to this one (Claude Code does neither).
func DirGen(dir string) (gen uint64, ok bool) { return changes.dirGen(dir) }

func (c *dirChanges) dirGen(dir string) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd == 0 {
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil {
			c.fd = -1
		} else {
			c.fd = fd
			c.byDir, c.byWD = map[string]*dirWatch{}, map[int]string{}
			c.buf = make([]byte, 16<<10)
		}
	}
	if c.fd < 0 {
		return 0, false
	}
	c.drain()
	w := c.byDir[dir]
	if w != nil && (w.dev != st.Dev || w.ino != st.Ino) {
		// dir now names another directory (its parent was moved, say),
		// which the watch is not on.
		c.forget(dir, w)
		w = nil
	}
	if w == nil {
		wd, err := unix.InotifyAddWatch(c.fd, dir, dirEvents)
		if err != nil {
			return 0, false
		}
		// What dir held before the watch existed is known to no earlier
		// generation: a new one. The same inode under another name shares
		// the watch descriptor; the other name then reads again too.
		c.gen++
		if old, ok := c.byWD[wd]; ok && old != dir {
			c.forget(old, c.byDir[old])
		}
		w = &dirWatch{wd: wd, dev: st.Dev, ino: st.Ino, gen: c.gen}
		c.byDir[dir], c.byWD[wd] = w, dir
		// The stat above may predate the watch: a replacement of dir in
		// between is caught by the next call's stat.
	}
	return w.gen, true
}

// forget drops the watch w of dir, leaving the watch in the kernel to an
// ignored-event if it is gone already.
func (c *dirChanges) forget(dir string, w *dirWatch) {
	delete(c.byDir, dir)
	if c.byWD[w.wd] == dir {
		delete(c.byWD, w.wd)
		_, _ = unix.InotifyRmWatch(c.fd, uint32(w.wd))
	}
}

// drain reads every queued event without blocking, moving the generation
// of each directory that changed.
func (c *dirChanges) drain() {
	for {
		n, err := unix.Read(c.fd, c.buf)
		if err != nil || n <= 0 {
			if err == unix.EINTR {
				continue
			}
			return // EAGAIN: the queue is empty
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&c.buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				// Events were lost: every directory may have changed.
				for _, w := range c.byDir {
					c.gen++
					w.gen = c.gen
				}
				continue
			}
			dir, ok := c.byWD[int(ev.Wd)]
			if !ok {
				continue
			}
			w := c.byDir[dir]
			c.gen++
			w.gen = c.gen
			if ev.Mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0 {
				// The watch no longer follows dir's path: the next call
				// watches whatever the path names then.
				c.forget(dir, w)
			}
		}
	}
}
