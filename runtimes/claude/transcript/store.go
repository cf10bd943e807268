package transcript

import (
	"path/filepath"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Store reads the transcripts under one Claude projects directory
// (~/.claude/projects): the shared history store (runtimes/history) over
// Claude's format. It is meant to live as long as the daemon, and is safe
// for concurrent use.
type Store struct {
	*history.Folders[index, *index]
	projectsDir string
}

var _ runtimes.Transcripts = (*Store)(nil)

// New returns a Store for projectsDir; a nil logger logs nothing.
func New(projectsDir string, logger *zap.Logger) *Store {
	return NewWith(projectsDir, history.Options{Log: logger})
}

// NewWith is New with the store's options.
func NewWith(projectsDir string, o history.Options) *Store {
	s := &Store{projectsDir: projectsDir}
	s.Folders = history.NewFolders(s.format(), history.Layout{
		Folder: s.Dir,
		Ext:    ".jsonl",
		IsID:   func(id string) bool { return uuid.Validate(id) == nil },
	}, o)
	return s
}

// format is how Claude Code's transcript lines are read. The layout
// (NewWith) is one <session id>.jsonl per session, in a folder per working
// directory; only files named by a UUID are sessions (this leaves out older
// CLIs' agent-*.jsonl sub-agent transcripts).
func (s *Store) format() history.Format[index, *index] {
	return history.Format[index, *index]{
		What:    "transcript",
		Version: indexVersion,
		Add:     (*index).add,
		Describe: func(x *index) (string, string) {
			return x.title(), x.branch
		},
		Message: func(sessionID string, _ int64, b []byte) (rpc.Message, bool) {
			l, _ := ParseLine(b) // a malformed line is read as no message
			return ToMessage(sessionID, l)
		},
		Counted: func(b []byte) bool {
			l, _ := ParseLine(b)
			return isMessage(l)
		},
	}
}

// WithWatcher makes Tail and List watch through w rather than the process's
// shared watcher; it returns s.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.Folders.WithWatcher(w)
	return s
}

// WithCacheDir makes s keep the indexes of big transcripts in dir too (see
// lineindex.Cache.Persist), so that the first page of one after a restart needs
// no scan of it; it returns s.
func (s *Store) WithCacheDir(dir string) *Store {
	s.Folders.WithCacheDir(dir)
	return s
}

// Dir is the folder holding dir's transcripts.
func (s *Store) Dir(dir string) string {
	return filepath.Join(s.projectsDir, EncodeDir(dir))
}
