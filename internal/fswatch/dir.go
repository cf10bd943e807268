package fswatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Files reports the files written or created in one directory, until
// closed. The directory need not exist yet: its nearest existing ancestor
// is watched until each missing level appears, and files already there
// when it appears are reported too (they were written before the watch
// could see them).
type Files struct {
	w       *Watcher
	target  string
	onFile  func(path string)
	onError func(error)

	mu      sync.Mutex
	handle  *Handle
	at      string // the directory handle watches: target or an ancestor
	closed  bool
	working sync.WaitGroup // descents started by callbacks
}

// WatchFiles starts reporting the files written in dir. onFile gets each
// file's path, possibly many times per file, from the subscription's
// goroutine. A refused watch is a *Error.
func (w *Watcher) WatchFiles(dir string, onFile func(path string), onError func(error)) (*Files, error) {
	f := &Files{w: w, target: filepath.Clean(dir), onFile: onFile, onError: onError}
	if f.onError == nil {
		f.onError = func(error) {}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	at := f.target
	for {
		err := f.watchLocked(at)
		if err == nil {
			return f, nil
		}
		parent := filepath.Dir(at)
		if !errors.Is(err, fs.ErrNotExist) || parent == at {
			return nil, err
		}
		at = parent
	}
}

func (f *Files) watchLocked(at string) error {
	h, err := f.w.Watch(at, f.onEvent, f.onError)
	if err != nil {
		return err
	}
	f.handle, f.at = h, at
	return nil
}

func (f *Files) onEvent(ev Event) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	if f.at == f.target {
		f.mu.Unlock()
		if filepath.Dir(ev.Name) == f.target && ev.Has(Write|Create) {
			f.onFile(ev.Name)
		}
		return
	}
	// Waiting for a level of the target to appear: go down as far as it
	// now exists. Replaced handles are closed from other goroutines, since
	// a callback must not close its own handle.
	if !ev.Has(Create) || !onPathTo(ev.Name, f.target) {
		f.mu.Unlock()
		return
	}
	var h *Handle
	at := ""
	for cur := ev.Name; ; {
		nh, err := f.w.Watch(cur, f.onEvent, f.onError)
		if err != nil {
			break
		}
		f.closeAsync(h)
		h, at = nh, cur
		if cur == f.target {
			break
		}
		rest := strings.TrimPrefix(f.target, cur+string(filepath.Separator))
		child := filepath.Join(cur, strings.SplitN(rest, string(filepath.Separator), 2)[0])
		if _, err := os.Stat(child); err != nil {
			break // its creation will be an event of h
		}
		cur = child
	}
	if h == nil {
		f.mu.Unlock()
		return
	}
	f.closeAsync(f.handle)
	f.handle, f.at = h, at
	reached := at == f.target
	f.mu.Unlock()
	if reached {
		entries, _ := os.ReadDir(f.target)
		for _, e := range entries {
			if !e.IsDir() {
				f.onFile(filepath.Join(f.target, e.Name()))
			}
		}
	}
}

func (f *Files) closeAsync(h *Handle) {
	if h == nil {
		return
	}
	f.working.Add(1)
	go func() { defer f.working.Done(); h.Close() }()
}

// onPathTo reports whether path is target or one of its ancestors.
func onPathTo(path, target string) bool {
	return path == target || strings.HasPrefix(target, path+string(filepath.Separator))
}

// Close stops reporting; no onFile runs once it returns (unless Close is
// called from onFile itself).
func (f *Files) Close() error {
	f.mu.Lock()
	f.closed = true
	h := f.handle
	f.mu.Unlock()
	if h != nil {
		h.Close()
	}
	f.working.Wait()
	return nil
}
