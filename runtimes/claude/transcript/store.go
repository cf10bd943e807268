package transcript

import (
	"cmp"
	"encoding/json"
	"path/filepath"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/history"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// Store reads the transcripts of a Claude projects directory, as long as the
// daemon lives; it is safe for concurrent use.
type Store struct {
	*history.Folders[index, *index]
	projectsDir string
}

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

// WithWatcher makes s watch through w, not the process's watcher.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.Folders.WithWatcher(w)
	return s
}

// WithCacheDir makes s save the indexes of big transcripts in dir.
func (s *Store) WithCacheDir(dir string) *Store {
	s.Folders.WithCacheDir(dir)
	return s
}

// Dir is the folder holding dir's transcripts.
func (s *Store) Dir(dir string) string {
	return filepath.Join(s.projectsDir, EncodeDir(dir))
}

// indexVersion names what add gathers, for saved indexes: change it with add.
const indexVersion = "claude-transcript-2"

// titleTypes title a session, by precedence: the user's (/rename), the
// CLI's, a compaction's summary.
var titleTypes = [...]string{"custom-title", "ai-title", "summary"}

// index is where a transcript's messages are (Lines), and what List reports.
type index struct {
	lineindex.Index
	facts
	line Line // the line being added (see add)
}

// facts are what List reports of a transcript, saved with its index.
type facts struct {
	Titles [len(titleTypes)]string
	Titled [len(titleTypes)]bool // a line set the title (to "" too): what Merge needs
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
	for i, t := range [...]json.RawMessage{l.CustomTitle, l.AITitle, l.Summary} {
		if is(l.Type, titleTypes[i]) {
			x.Titles[i], x.Titled[i] = str(t), true
		}
	}
	// Only the earliest part of a parallel scan with a prompt looks for one:
	// that decodes every user message until found (most are tool results).
	if x.Prompt == "" && !x.FoundBefore() {
		if x.Prompt = prompt(*l); x.Prompt != "" {
			x.Found()
		}
	}
	msg := isMessage(*l)
	*l = Line{} // it borrows from b
	return msg
}

// Expect and Finish do nothing (lineindex.Indexed): x sizes nothing ahead
// and puts nothing off. Size is the memory x takes besides its lines.
func (x *index) Expect(part, total float64) {}
func (x *index) Finish()                    {}
func (x *index) Size() int64 {
	n := len(x.Prompt) + len(x.Branch)
	for _, t := range x.Titles {
		n += len(t)
	}
	return int64(n)
}

// Merge takes in y, of the part after x's: later titles and branch win, the
// first prompt stays (lineindex.Indexed).
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

// title is the session's title, else its first prompt, cut to 100 characters.
func (x *index) title() string {
	return history.Shorten(cmp.Or(append(x.Titles[:], x.Prompt)...), 100)
}
