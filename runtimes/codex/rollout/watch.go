package rollout

import (
	"io"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// Watch calls changed with the id of each thread of dir whose rollout is
// written in today's date directory (sessions/YYYY/MM/DD, local time, as
// Codex files them), until the Closer is closed. At midnight it moves on to
// the new day's directory. A thread resumed from an older day appends to
// its old rollout, which this does not see; cdevd reports the threads it
// runs itself from their events.
func (s *Store) Watch(dir string, changed func(id string)) (io.Closer, error) {
	w := &dayWatch{s: s, dir: dir, changed: changed, now: time.Now}
	if err := w.aim(); err != nil {
		return nil, err
	}
	return w, nil
}

type dayWatch struct {
	s       *Store
	dir     string
	changed func(id string)
	now     func() time.Time

	mu     sync.Mutex
	files  *fswatch.Files
	timer  *time.Timer
	closed bool
}

// aim watches the current day's directory and sets the timer for the next.
func (w *dayWatch) aim() error {
	now := w.now()
	day := filepath.Join(w.s.sessions, now.Format("2006"), now.Format("01"), now.Format("02"))
	f, err := fswatch.Or(w.s.Watcher()).WatchFiles(day, w.onFile, nil)
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

func (w *dayWatch) rollOver() {
	if err := w.aim(); err != nil {
		w.s.log.Warn("cannot watch the new day's rollouts", zap.Error(err))
	}
}

func (w *dayWatch) onFile(path string) {
	id := threadID(filepath.Base(path))
	if id == "" {
		return
	}
	// Remember where it is: List and Locate need not walk for it.
	w.s.mu.Lock()
	w.s.paths[id] = path
	w.s.mu.Unlock()
	if _, err := w.s.Path(w.dir, id); err == nil {
		w.changed(id)
	}
}

// Close stops watching; no changed call runs once it returns.
func (w *dayWatch) Close() error {
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
