package chats

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// Store reads the chat files under one Gemini home ($HOME/.gemini): the
// history store over Gemini's format (see the package's doc). It is meant
// to live as long as the daemon, and is safe for concurrent use.
type Store struct {
	// List, Has, Trash, Watch, Close and Stats are the tree's.
	*history.Tree[index, *index]

	tmp     string // <gemini home>/tmp
	log     *zap.Logger
	watcher *fswatch.Watcher // nil: the shared one
}

var _ runtimes.Transcripts = (*Store)(nil)

// New returns a Store for the Gemini home geminiHome (~/.gemini); a nil
// logger logs nothing.
func New(geminiHome string, logger *zap.Logger) *Store {
	return NewWith(geminiHome, history.Options{Log: logger})
}

// NewWith is New with the store's options.
func NewWith(geminiHome string, o history.Options) *Store { return tuned(geminiHome, o, 0) }

// tuned is NewWith with a bound on the folders List watches (0: the
// default; see history.DateTree): tests lower it.
func tuned(geminiHome string, o history.Options, maxWatchedDirs int) *Store {
	s := &Store{tmp: filepath.Join(geminiHome, "tmp"), log: cmp.Or(o.Log, zap.NewNop()), watcher: o.Watcher}
	s.Tree = history.NewTree(format, history.DateTree[*index]{
		Root:    s.tmp,
		ID:      shortID,
		Dir:     func(x *index) string { return x.header.ProjectHash },
		Key:     id8,
		Session: func(x *index) string { return x.header.SessionID },
		Depth:   2,
		// tmp/<project>/chats, the chats folder possibly a link.
		Enter: func(level int, de fs.DirEntry) bool {
			return de.IsDir() || (level == 2 && de.Name() == "chats" && de.Type()&fs.ModeSymlink != 0)
		},
		Match: hashes,
		Group: list,
		// Another project's file, however small, is known by its first
		// line; those in the folder Gemini uses for dir are nearly all
		// dir's, indexed without it (reading it was half of a cold List).
		HeadMin:        -1,
		Near:           func(dir string) string { return filepath.Join(s.tmp, s.slug(dir), "chats") },
		Rewrites:       true, // a session/load in the minute a file began rewrites it
		MaxWatchedDirs: maxWatchedDirs,
	}, o)
	return s
}

// format is how Gemini's chat files are read: pages and tails are of
// records, not lines, so the Store pages and follows them itself (see
// history.Format).
var format = history.Format[index, *index]{
	What:    "chat file",
	Version: indexVersion,
	Add:     (*index).add,
}

// WithCacheDir makes s keep the replays of big chat files in dir too (a
// first page after a restart then replays nothing); it returns s.
func (s *Store) WithCacheDir(dir string) *Store {
	s.Tree.WithCacheDir(dir)
	return s
}

// WithWatcher makes s watch through w rather than the process's shared
// watcher; it returns s.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.watcher = w
	s.Tree.WithWatcher(w)
	return s
}

// ProjectHash is the projectHash Gemini records for a session run in dir:
// the SHA-256 hex of the path string.
func ProjectHash(dir string) string {
	h := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(h[:])
}

// hashes is the test of whether a projectHash is dir's, as given or as a
// canonical path: Gemini hashes the cwd string it was given, which cdevd
// passes canonical.
func hashes(dir string) func(string) bool {
	c := dir
	if p, err := filepath.EvalSymlinks(dir); err == nil {
		c = p
	}
	a, b := ProjectHash(filepath.Clean(dir)), ProjectHash(c)
	return func(x string) bool { return x != "" && (x == a || x == b) }
}

// stampFormat is the minute (UTC) in session-<stamp>-<id8>.jsonl.
const stampFormat = "2006-01-02T15-04"

// shortID is the id8 of a chat file name, or "" (also when it could not
// name a session safely: see runtimes.ValidSessionID).
func shortID(name string) string {
	rest, ok := strings.CutPrefix(name, "session-")
	rest, ok2 := strings.CutSuffix(rest, ".jsonl")
	if !ok || !ok2 || len(rest) < len(stampFormat)+2 || rest[len(stampFormat)] != '-' {
		return ""
	}
	if id := rest[len(stampFormat)+1:]; runtimes.ValidSessionID(id) == nil {
		return id
	}
	return ""
}

// id8 is the part of a session id Gemini puts in file names.
func id8(id string) string { return id[:min(8, len(id))] }

// slug is the directory name Gemini files dir's chats under: the one
// projects.json gives, else dir's base name.
func (s *Store) slug(dir string) string {
	var p struct {
		Projects map[string]string `json:"projects"`
	}
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(s.tmp), "projects.json")) // none: Unmarshal fails
	if json.Unmarshal(b, &p) == nil {
		if sl := p.Projects[dir]; sl != "" && filepath.Base(sl) == sl && sl != ".." && sl != "." {
			return sl
		}
	}
	return filepath.Base(filepath.Clean(dir))
}

// Messages returns a page of session id's messages and their number. With
// desc, offset counts from the newest message and the page is newest
// first. Only the page's records are read, at most runtimes.PageBytes of
// them (at least one; a bigger one Omitted).
func (s *Store) Messages(ctx context.Context, dir, id string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("invalid page: offset %d, limit %d", offset, limit)
	}
	ss, err := s.session(ctx, dir, id, true)
	if err != nil {
		return nil, 0, err
	}
	es, total, called := ss.page(offset, limit, desc)
	used := 0 // bounded by bytes too, before any is read
	for i, e := range es {
		if used += e.n; i > 0 && used > runtimes.PageBytes {
			es = es[:i]
			break
		}
	}
	page, fallback := make([]rpc.Message, 0, len(es)), ss.real[0].header.StartTime
	open := map[string]*os.File{} // a page of a session of several files reads several
	defer func() {
		for _, f := range open {
			f.Close()
		}
	}()
	for _, e := range es {
		f := open[e.path]
		if f == nil {
			if f, err = jsonl.OpenRegular(e.path); err != nil { // a FIFO in its place must not block
				return nil, 0, noSession(id)
			}
			open[e.path] = f
		}
		raw, err := e.read(f)
		if err != nil {
			// Rewritten in place, or cut short: replayed afresh next time.
			s.Forget(e.path)
			return nil, 0, fmt.Errorf("chat file %s changed while read: %w", e.path, err)
		}
		if m, ok := ToMessage(id, raw, called, fallback); ok {
			page = append(page, runtimes.Omitted(m, len(raw)))
		}
	}
	return page, total, nil
}

// Stamps are the minutes (UTC) in the names of session id's chat files for
// dir: Gemini names each file after the minute in which it began recording
// it, and a session/load in that same minute would write over the file's
// history (CLI-PROTOCOLS.md 2.7). ErrNoSession when none is stored.
func (s *Store) Stamps(ctx context.Context, dir, id string) ([]time.Time, error) {
	ss, err := s.session(ctx, dir, id, false)
	if err != nil {
		return nil, err
	}
	var out []time.Time
	for _, v := range ss.files {
		name := strings.TrimPrefix(filepath.Base(v.path), "session-")
		if t, err := time.Parse(stampFormat, name[:min(len(name), len(stampFormat))]); err == nil {
			out = append(out, t)
		}
	}
	return out, nil
}

// session is one session's files for a workspace, in order of start time
// (history.Tree.Files grouped).
type session struct {
	id    string
	files []*view // all, phantoms included
	real  []*view // those with a user message
}

// group groups files, all of one workspace, by session id.
func group(files []history.File[*index]) map[string]*session {
	out := map[string]*session{}
	for _, f := range files {
		v := f.X.view(f.Path)
		sid := v.header.SessionID
		// An id that could not name a session safely is not one cdevd offers.
		if runtimes.ValidSessionID(sid) != nil {
			continue
		}
		ss := out[sid]
		if ss == nil {
			ss = &session{id: sid}
			out[sid] = ss
		}
		ss.files = append(ss.files, v)
		if v.prompt != "" {
			ss.real = append(ss.real, v)
		}
	}
	byStart := func(a, b *view) int {
		return cmp.Or(cmp.Compare(a.header.StartTime, b.header.StartTime), cmp.Compare(a.path, b.path))
	}
	for _, ss := range out {
		slices.SortFunc(ss.files, byStart)
		slices.SortFunc(ss.real, byStart)
	}
	return out
}

// messages is the messages of the session's files with a user message, in
// order, a record id seen in an earlier file kept where it was first (its
// last version wins).
func (ss *session) messages() ([]*entry, func(string) bool) {
	called := func(id string) bool {
		return slices.ContainsFunc(ss.real, func(v *view) bool { return v.called(id) })
	}
	var out []*entry
	at := map[string]int{}
	for _, v := range ss.real {
		for _, e := range v.all() {
			if i, ok := at[e.id]; ok {
				out[i] = e
				continue
			}
			at[e.id] = len(out)
			out = append(out, e)
		}
	}
	return out, called
}

// page is up to limit of the session's messages from offset, counted from
// the newest when desc, their number, and its test of a tool call's id. A
// session of one file (nearly all) makes only the page's entries.
func (ss *session) page(offset, limit int, desc bool) ([]*entry, int, func(string) bool) {
	n, at, called := ss.real[0].n, ss.real[0].entry, ss.real[0].called
	if len(ss.real) > 1 {
		var msgs []*entry
		msgs, called = ss.messages()
		n, at = len(msgs), func(j int) *entry { return msgs[j] }
	}
	from := min(offset, n)
	return pageOf(n, from, from+min(limit, n-from), desc, at), n, called // offset+limit could overflow
}

// list is the history store's List of a workspace's files (see
// history.DateTree.Group): its sessions with a user message, newest first
// (by the last write to any of their files).
func list(files []history.File[*index]) []runtimes.Summary {
	type listed struct {
		runtimes.Summary
		t int64
	}
	var out []listed
	for _, ss := range group(files) {
		if len(ss.real) == 0 {
			continue // a phantom
		}
		_, n, _ := ss.page(0, 0, false) // the count only
		var t int64
		for _, v := range ss.files {
			t = max(t, v.mtime)
		}
		out = append(out, listed{runtimes.Summary{
			SessionID:    ss.id,
			Summary:      history.Shorten(strings.TrimSpace(ss.real[0].prompt), 100),
			MessageCount: n,
			LastUpdated:  time.Unix(0, t).UTC().Format(history.TimeFormat),
		}, t})
	}
	slices.SortFunc(out, func(a, b listed) int {
		return cmp.Or(cmp.Compare(b.t, a.t), cmp.Compare(a.SessionID, b.SessionID))
	})
	res := make([]runtimes.Summary, len(out))
	for i, l := range out {
		res[i] = l.Summary
	}
	return res
}

// noSession is the error for a session without a chat file in dir.
func noSession(id string) error {
	return fmt.Errorf("gemini session %s: %w", id, runtimes.ErrNoSession)
}

// session returns session id of dir (history.Tree.Files); with real, only
// if it has a user message.
func (s *Store) session(ctx context.Context, dir, id string, real bool) (*session, error) {
	files, err := s.Files(ctx, dir, id)
	if err != nil {
		return nil, err
	}
	ss := group(files)[id]
	if ss == nil || (real && len(ss.real) == 0) {
		return nil, noSession(id)
	}
	return ss, nil
}
