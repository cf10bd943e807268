package transcript

import (
	"cmp"
	"encoding/json"
	"path/filepath"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// Store reads the transcripts under one Claude projects directory
// (~/.claude/projects). It is meant to live as long as the daemon, and is
// safe for concurrent use.
type Store struct {
	*history.Folders[index, *index]
	projectsDir string
}

var _ runtimes.Transcripts = (*Store)(nil)

// New returns a Store for projectsDir; a nil logger logs nothing.
func New(projectsDir string, logger *zap.Logger) *Store {
	return NewWith(projectsDir, history.Options{Log: logger})
}

// NewWith is New with the store's options. A session is one <session
// id>.jsonl in a folder per working directory; only files named by a UUID
// are sessions (this leaves out older CLIs' agent-*.jsonl sub-agents).
func NewWith(projectsDir string, o history.Options) *Store {
	s := &Store{projectsDir: projectsDir}
	s.Folders = history.NewFolders(history.Format[index, *index]{
		What:     "transcript",
		Version:  indexVersion,
		Add:      (*index).add,
		Describe: func(x *index) (string, string) { return x.title(), x.Branch },
		Message: func(sessionID string, _ int64, b []byte) (rpc.Message, bool) {
			return ToMessage(sessionID, parse(b))
		},
		Counted: func(b []byte) bool { return isMessage(parse(b)) },
	}, history.Layout{
		Folder: s.Dir,
		Ext:    ".jsonl",
		IsID:   func(id string) bool { return uuid.Validate(id) == nil },
	}, o)
	return s
}

// WithWatcher makes Tail and List watch through w rather than the process's
// shared watcher; it returns s.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.Folders.WithWatcher(w)
	return s
}

// WithCacheDir makes s keep the indexes of big transcripts in dir too, so
// that the first page of one after a restart needs no scan; it returns s.
func (s *Store) WithCacheDir(dir string) *Store {
	s.Folders.WithCacheDir(dir)
	return s
}

// Dir is the folder holding dir's transcripts.
func (s *Store) Dir(dir string) string {
	return filepath.Join(s.projectsDir, EncodeDir(dir))
}

// indexVersion names what add gathers, for saved indexes: change it
// whenever add, isMessage or facts change.
const indexVersion = "claude-transcript-2"

// titleKinds are the lines that title a session, by precedence: the
// user's name for it (/rename), the CLI's, a compaction's summary.
var titleKinds = [...]struct {
	typ  string
	text func(*Line) json.RawMessage
}{
	{"custom-title", func(l *Line) json.RawMessage { return l.CustomTitle }},
	{"ai-title", func(l *Line) json.RawMessage { return l.AITitle }},
	{"summary", func(l *Line) json.RawMessage { return l.Summary }},
}

// index is what one scan of a transcript learned: where its message lines
// are (the kept Lines) and what List reports.
type index struct {
	lineindex.Index
	facts
	line  Line             // the line being added (see add)
	piece *lineindex.Piece // the part of a full scan x indexes, while it does
}

// facts are what List reports of a transcript, saved with its index.
type facts struct {
	Titles [len(titleKinds)]string
	Titled [len(titleKinds)]bool // a line set the title (to "" too): what Merge needs
	Prompt string
	Branch string
}

// add takes one line into the index, reporting whether it is a message.
func (x *index) add(b []byte) bool {
	// Read into the index's own Line: a line's own escaped to the heap
	// (the schema fills it through func values), an allocation a line.
	l := &x.line
	if !read(lineSchema, x.Shape(), b, l) {
		return false // a torn or foreign line: not a message
	}
	if len(l.GitBranch) > 0 && !is(l.GitBranch, x.Branch) {
		x.Branch = cmp.Or(str(l.GitBranch), x.Branch)
	}
	// The latest title of each kind wins: they are re-appended when renamed.
	for i, k := range titleKinds {
		if is(l.Type, k.typ) {
			x.Titles[i], x.Titled[i] = str(k.text(l)), true
		}
	}
	// Only the earliest part of a parallel scan that has a prompt keeps it:
	// looking for one decodes every user message until found, and most of
	// a long agentic session's are tool results.
	if x.Prompt == "" && !x.piece.FoundBefore() {
		if x.Prompt = prompt(*l); x.Prompt != "" {
			x.piece.Found()
		}
	}
	msg := isMessage(*l)
	*l = Line{} // it borrows from b
	return msg
}

// SetPiece tells x which part of a full scan it indexes (lineindex.Indexed).
func (x *index) SetPiece(p *lineindex.Piece) { x.piece = p }

// Merge takes in the index of the part of the file that follows x's (see
// lineindex.Indexed): later titles and branch win, the first prompt stays.
func (x *index) Merge(y *index) {
	for i, set := range y.Titled {
		if set {
			x.Titles[i], x.Titled[i] = y.Titles[i], true
		}
	}
	x.Prompt = cmp.Or(x.Prompt, y.Prompt)
	x.Branch = cmp.Or(y.Branch, x.Branch)
}

// AppendFacts appends what x gathered besides its lines (lineindex.Indexed).
func (x *index) AppendFacts(b []byte) []byte {
	j, _ := json.Marshal(x.facts) // strings and bools: no error
	return append(b, j...)
}

// ReadFacts reads what AppendFacts wrote.
func (x *index) ReadFacts(b []byte) error { return json.Unmarshal(b, &x.facts) }

// title is the session's summary: a title the user or the CLI gave it, else
// the first prompt, cut to about 100 characters.
func (x *index) title() string {
	for _, t := range x.Titles {
		if t != "" {
			return history.Shorten(t, 100)
		}
	}
	return history.Shorten(x.Prompt, 100)
}
