package rollout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Store reads the rollouts under one Codex home ($CODEX_HOME, by default
// ~/.codex). It caches one index per rollout and where each thread's rollout
// is, so it is meant to live as long as the daemon. It is safe for
// concurrent use.
type Store struct {
	// The indexes, summaries, pages and tails: the shared history store
	// over Codex's format. Where the rollouts are is this package's.
	*history.Store[index, *index]
	sessions string // <codex home>/sessions
	log      *zap.Logger

	mu    sync.Mutex
	paths map[string]string // rollout path by thread id

	// The workspace of each rollout, by path, as long as the file is the
	// same one (see head).
	hmu   sync.Mutex
	heads map[string]head

	// List's watch of the sessions tree and its last result per workspace.
	lmu  sync.Mutex
	tr   tree
	idle time.Duration // the watches unused this long are released
	// maxDirs is maxWatchedDirs, headMin headMin; tests lower them.
	maxDirs int
	headMin int64
	closed  bool // Close was called: List watches nothing
	// afterFunc is time.AfterFunc; tests fire the release themselves.
	afterFunc func(time.Duration, func()) *time.Timer

	// Counters that let tests prove what the caches save (and Stats).
	headBytes atomic.Int64 // read from rollouts' first lines
	walks     atomic.Int64
}

var _ runtimes.Transcripts = (*Store)(nil)

// New returns a Store for the Codex home codexHome; a nil logger logs nothing.
func New(codexHome string, logger *zap.Logger) *Store {
	if logger == nil {
		logger = zap.NewNop()
	}
	s := &Store{sessions: filepath.Join(codexHome, "sessions"), log: logger, paths: map[string]string{},
		heads: map[string]head{}, idle: listIdle, maxDirs: maxWatchedDirs, headMin: headMin, afterFunc: time.AfterFunc,
		tr: tree{gens: map[string]*fswatch.Gen{}, lists: map[string]*listing{}}}
	s.Store = history.New(format, s.Path, history.Options{Log: logger})
	return s
}

// format is how Codex's rollout lines are read.
var format = history.Format[index, *index]{
	What:    "rollout",
	Version: indexVersion,
	Add:     (*index).add,
	Describe: func(x *index) (string, string) {
		return history.Shorten(strings.TrimSpace(x.prompt), 100), ""
	},
	Message: func(id string, off int64, b []byte) (rpc.Message, bool) {
		l, err := pageLine(b)
		m, ok := ToMessage(id, off, l)
		return m, ok && err == nil
	},
	Counted: func(b []byte) bool {
		f, ok := classify(b)
		return ok && f.isMessage()
	},
	Tailed: func(id string, off int64, b []byte) (rpc.Message, bool, error) {
		l, err := ParseLine(b)
		if err != nil {
			return rpc.Message{}, false, err
		}
		m, ok := ToMessage(id, off, l)
		return m, ok, nil
	},
}

// WithWatcher makes Tail and List watch through w rather than the
// process's shared watcher; it returns s.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.Store.WithWatcher(w)
	return s
}

// WithCacheDir makes s keep the indexes of big rollouts in dir too (see
// jsonl.Cache.Persist), so that the first page of one after a restart needs
// no scan of it; it returns s.
func (s *Store) WithCacheDir(dir string) *Store {
	s.Store.WithCacheDir(dir)
	return s
}

// stampLen is the length of the stamp in rollout-<stamp>-<id>.jsonl.
const stampLen = len("2006-01-02T15-04-05")

// threadID is the thread id in a rollout file name, or "".
func threadID(name string) string {
	rest, ok := strings.CutPrefix(name, "rollout-")
	if !ok {
		return ""
	}
	rest, ok = strings.CutSuffix(rest, ".jsonl")
	if !ok || len(rest) < stampLen+2 || rest[stampLen] != '-' {
		return ""
	}
	id := rest[stampLen+1:]
	if runtimes.ValidSessionID(id) != nil {
		return ""
	}
	return id
}

// rolloutFile is one rollout found by walk: its name in the open date
// directory dir, so that List stats it relative to dir (fstatat) rather
// than by its path.
type rolloutFile struct {
	id, path, name string
	dir            *os.File
}

// walk lists every rollout under sessions/YYYY/MM/DD, reading only the
// directories, calling each (when not nil) with every rollout while its
// directory is open, and remembers where each thread's rollout is. It
// returns the directories it read.
func (s *Store) walk(ctx context.Context, each func(r rolloutFile) error) ([]string, error) {
	s.walks.Add(1)
	var dirs []string
	var visit func(dir string, depth int) error
	visit = func(dir string, depth int) error {
		f, err := jsonl.OpenDir(dir)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
			return nil // removed meanwhile, no sessions yet, or a FIFO (say) in its place
		}
		if err != nil {
			return err
		}
		defer f.Close()
		dirs = append(dirs, dir)
		des, err := f.ReadDir(-1) // unsorted: List sorts by time
		if err != nil {
			return err
		}
		for _, de := range des {
			if err := ctx.Err(); err != nil {
				return err
			}
			if depth < 3 {
				if de.IsDir() {
					if err := visit(filepath.Join(dir, de.Name()), depth+1); err != nil {
						return err
					}
				}
				continue
			}
			id := threadID(de.Name())
			if id == "" || !de.Type().IsRegular() {
				continue
			}
			r := rolloutFile{id, filepath.Join(dir, de.Name()), de.Name(), f}
			s.mu.Lock()
			s.paths[id] = r.path
			s.mu.Unlock()
			if each != nil {
				if err := each(r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := visit(s.sessions, 0)
	return dirs, err
}

// Locate returns the rollout of thread id. A known path is checked with one
// stat; an unknown id is looked for in the date directories of its
// creation time, then (not there, or not a UUIDv7) by a walk of them all.
func (s *Store) Locate(id string) (string, bool) {
	p, _, ok := s.locate(id)
	return p, ok
}

// locate is Locate, with the rollout's metadata.
func (s *Store) locate(id string) (string, os.FileInfo, bool) {
	if runtimes.ValidSessionID(id) != nil {
		return "", nil, false
	}
	s.mu.Lock()
	p, ok := s.paths[id]
	s.mu.Unlock()
	if ok {
		if fi, err := os.Stat(p); err == nil {
			return p, fi, true
		}
		s.mu.Lock()
		delete(s.paths, id)
		s.mu.Unlock()
	}
	if p, fi, ok := s.atIDTime(id); ok {
		s.mu.Lock()
		s.paths[id] = p
		s.mu.Unlock()
		return p, fi, true
	}
	if _, err := s.walk(context.Background(), nil); err != nil {
		s.log.Warn("walk rollouts", zap.Error(err))
		return "", nil, false
	}
	s.mu.Lock()
	p, ok = s.paths[id]
	s.mu.Unlock()
	if !ok {
		return "", nil, false
	}
	fi, err := os.Stat(p)
	return p, fi, err == nil
}

// atIDTime looks for thread id's rollout in the date directories its id
// names, reading two or three directories where a walk reads them all (68%
// of a first page of a 1 MB rollout among 200 others, by pprof of
// BenchmarkFirstPage). Codex's thread ids are UUIDv7, whose first 48 bits
// are the creation time in milliseconds, and Codex files a rollout under
// the local date of its creation; the days either side cover a CLI run in
// another time zone, and the first turn (which creates the file) coming
// after midnight.
func (s *Store) atIDTime(id string) (string, os.FileInfo, bool) {
	ms, ok := uuid7Millis(id)
	if !ok {
		return "", nil, false
	}
	t := time.UnixMilli(ms)
	suffix := "-" + id + ".jsonl"
	for _, d := range []int{0, -1, 1} {
		day := t.AddDate(0, 0, d)
		dir := filepath.Join(s.sessions, day.Format("2006"), day.Format("01"), day.Format("02"))
		f, err := jsonl.OpenDir(dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1) // unsorted, no stat: one match is wanted
		f.Close()
		for _, n := range names {
			if strings.HasSuffix(n, suffix) && threadID(n) == id {
				p := filepath.Join(dir, n)
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					return p, fi, true
				}
			}
		}
	}
	return "", nil, false
}

// uuid7Millis is the creation time, in Unix milliseconds, that id holds if
// it is a UUIDv7 (xxxxxxxx-xxxx-7xxx-...).
func uuid7Millis(id string) (int64, bool) {
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[14] != '7' {
		return 0, false
	}
	ms, err := strconv.ParseUint(id[:8]+id[9:13], 16, 64)
	if err != nil {
		return 0, false
	}
	return int64(ms), true
}

// summary is what List reports of one thread, with the time it sorts by and
// the index it was made from.
type summary struct {
	runtimes.Summary
	mtime time.Time
	x     *index
}

// summarize describes the rollout r from its up-to-date index. Its metadata
// fi, read relative to its open directory, tells whether the cached index is
// current, so that an unchanged rollout is not even opened, and its summary
// not made again.
func (s *Store) summarize(ctx context.Context, r rolloutFile, fi os.FileInfo) (summary, error) {
	sum, mtime, x, err := s.Summary(ctx, r.id, r.path, fi)
	return summary{sum, mtime, x}, err
}

// prune forgets the cached indexes, heads and summaries of rollouts the last walk
// did not see.
func (s *Store) prune(seen map[string]bool) {
	drop := func(p string) bool { return !seen[p] }
	s.Prune(drop)
	s.hmu.Lock()
	defer s.hmu.Unlock()
	for p := range s.heads {
		if drop(p) {
			delete(s.heads, p)
		}
	}
}

// noSession is the error for a thread without a rollout in dir.
func noSession(id string) error {
	return fmt.Errorf("thread %s: %w", id, runtimes.ErrNoSession)
}

// Has reports whether thread id has a rollout that records dir as its cwd.
func (s *Store) Has(_ context.Context, dir, id string) bool {
	_, err := s.Path(dir, id)
	return err == nil
}

// Trash moves thread id's rollout into bin.
func (s *Store) Trash(_ context.Context, dir, id string, bin runtimes.Bin) error {
	p, err := s.Path(dir, id)
	if err != nil {
		return err
	}
	if err := bin.Put(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noSession(id)
		}
		return err
	}
	s.mu.Lock()
	delete(s.paths, id)
	s.mu.Unlock()
	s.Forget(p)
	return nil
}

// Path is the rollout of thread id if it records dir as its cwd. The error
// wraps runtimes.ErrNoSession when there is none.
func (s *Store) Path(dir, id string) (string, error) {
	if err := runtimes.ValidSessionID(id); err != nil {
		return "", err
	}
	p, fi, ok := s.locate(id)
	if !ok {
		return "", noSession(id)
	}
	x, err := s.Index(context.Background(), p, fi)
	if errors.Is(err, jsonl.ErrNotRegular) {
		return "", fmt.Errorf("%w: %w", noSession(id), err) // a FIFO in its place since it was found, say
	}
	if err != nil {
		return "", err
	}
	if !inDir(x.cwd, dir, func() string { return canonical(dir) }) {
		return "", noSession(id)
	}
	return p, nil
}
