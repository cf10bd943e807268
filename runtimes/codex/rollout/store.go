package rollout

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Store reads the rollouts under one Codex home ($CODEX_HOME, by default
// ~/.codex). It is meant to live as long as the daemon, and is safe for
// concurrent use.
type Store struct {
	*history.Tree[index, *index]
}

var _ runtimes.Transcripts = (*Store)(nil)

// New returns a Store for the Codex home codexHome; a nil logger logs nothing.
func New(codexHome string, logger *zap.Logger) *Store {
	return NewWith(codexHome, history.Options{Log: logger})
}

// NewWith is New with the store's options.
func NewWith(codexHome string, o history.Options) *Store { return tuned(codexHome, o, 0, 0) }

// tuned is NewWith with the layout's tuning (history.DateTree; 0: the
// default), which tests lower.
func tuned(codexHome string, o history.Options, maxWatchedDirs int, headMin int64) *Store {
	return &Store{history.NewTree(format, history.DateTree[*index]{
		Root: filepath.Join(codexHome, "sessions"),
		ID:   threadID,
		Dir:  func(x *index) string { return x.cwd },
		Created: func(id string) (time.Time, bool) {
			ms, ok := uuid7Millis(id)
			return time.UnixMilli(ms), ok
		},
		MaxWatchedDirs: maxWatchedDirs,
		HeadMin:        headMin,
	}, o)}
}

var format = history.Format[index, *index]{
	What:    "rollout",
	Version: indexVersion,
	Add:     (*index).add,
	Describe: func(x *index) (string, string) {
		return history.Shorten(strings.TrimSpace(x.prompt), 100), ""
	},
	Message: func(id string, off int64, b []byte) (rpc.Message, bool) {
		var l Line
		_, err := readLine(nil, b, &l)
		m, ok := ToMessage(id, off, l)
		return m, ok && err == nil
	},
	Counted: func(b []byte) bool {
		var l Line
		_, err := readLine(nil, b, &l)
		return err == nil && isMessage(l)
	},
}

// WithWatcher makes Tail, Watch and List watch through w rather than the
// process's shared watcher; it returns s.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.Tree.WithWatcher(w)
	return s
}

// WithCacheDir makes s persist the indexes of big rollouts in dir, so that
// a first page after a restart scans none; it returns s.
func (s *Store) WithCacheDir(dir string) *Store {
	s.Tree.WithCacheDir(dir)
	return s
}

// stampLen is the length of the stamp in rollout-<stamp>-<id>.jsonl.
const stampLen = len("2006-01-02T15-04-05")

// threadID is the thread id in a rollout's file name, or "".
func threadID(name string) string {
	rest, ok := strings.CutPrefix(name, "rollout-")
	rest, ok2 := strings.CutSuffix(rest, ".jsonl")
	if !ok || !ok2 || len(rest) < stampLen+2 || rest[stampLen] != '-' || runtimes.ValidSessionID(rest[stampLen+1:]) != nil {
		return ""
	}
	return rest[stampLen+1:]
}

// uuid7Millis is the creation time (Unix milliseconds) id holds if it is a
// UUIDv7, as Codex's thread ids are.
func uuid7Millis(id string) (int64, bool) {
	u, err := uuid.Parse(id)
	sec, nsec := u.Time().UnixTime()
	return sec*1e3 + nsec/1e6, err == nil && u.Version() == 7
}
