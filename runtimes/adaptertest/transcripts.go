package adaptertest

// Transcript helpers: a Transcripts.Watch that records the ids it reports,
// and a runtimes.Bin in the test's temporary directory.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

// watch records the session ids a Transcripts.Watch reports.
type watch struct {
	changed chan struct{} // one pending wake-up, never blocks the watcher

	mu   sync.Mutex
	ids  map[string]bool
	seen chan struct{} // closed and replaced when a new id is reported
}

func startWatch(t *testing.T, tr runtimes.Transcripts, dir string) *watch {
	t.Helper()
	w := &watch{changed: make(chan struct{}, 1), ids: map[string]bool{}, seen: make(chan struct{})}
	closer, err := tr.Watch(dir, func(id string) {
		select {
		case w.changed <- struct{}{}:
		default:
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.ids[id] {
			w.ids[id] = true
			close(w.seen)
			w.seen = make(chan struct{})
		}
	})
	if err != nil {
		t.Fatalf("Watch(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := closer.Close(); err != nil {
			t.Errorf("closing the watch: %v", err)
		}
	})
	return w
}

// await waits until id was reported.
func (w *watch) await(t *testing.T, id string, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		ok, seen := w.ids[id], w.seen
		ids := fmt.Sprint(w.ids)
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-seen:
		case <-deadline.C:
			t.Fatalf("Watch never reported session %s (it reported %s)", id, ids)
		}
	}
}

// bin is a runtimes.Bin in a test's temporary directory.
type bin struct {
	dir string

	mu  sync.Mutex
	put []string
}

func newBin(t *testing.T) *bin { return &bin{dir: t.TempDir()} }

// Put moves path into the bin under a fresh name, never replacing a file.
func (b *bin) Put(path string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	dst := filepath.Join(b.dir, fmt.Sprintf("%d-%s", len(b.put), filepath.Base(path)))
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("bin: %s exists", dst)
	}
	if err := os.Rename(path, dst); err != nil {
		return err
	}
	b.put = append(b.put, path)
	return nil
}

func (b *bin) files() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.put)
}
