package chats

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// shared history store (runtimes/history) over Gemini's format, in the
// layout of a tree tmp/<project>/chats whose files record their project,
// several files making one session. It is meant to live as long as the
// daemon, and is safe for concurrent use.
type Store struct {
	tmp     string // <gemini home>/tmp
	log     *zap.Logger
	watcher *fswatch.Watcher // nil: the shared one
	t       *history.Tree[index, *index]
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
	s.t = history.NewTree(format, history.DateTree[*index]{
		Root: s.tmp,
		ID: func(name string) string {
			if id := shortID(name); runtimes.ValidSessionID(id) == nil {
				return id
			}
			return ""
		},
		Dir:   func(x *index) string { return x.header.ProjectHash },
		Depth: 2,
		// tmp/<project>/chats, the chats folder possibly a link.
		Enter: func(level int, de fs.DirEntry) bool {
			return de.IsDir() || (level == 2 && de.Name() == "chats" && de.Type()&fs.ModeSymlink != 0)
		},
		Match: func(dir string) func(string) bool { return hashes(dir).has },
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

// format is how Gemini's chat files are read. Pages and tails are of
// records, not lines: the Store pages and follows them itself, using the
// history store for the indexes and the listing (see history.Format).
var format = history.Format[index, *index]{
	What:    "chat file",
	Version: indexVersion,
	Add:     (*index).add,
	// Never asked: with Group, the tree's List makes the summaries of
	// sessions (list), not of files (history.Tree.summary).
	Describe: func(*index) (string, string) { return "", "" },
}

// List returns the sessions of dir that have a user message, newest first
// (by the last write to any of their files): see history.Tree.List. The
// result is shared with later calls: callers must not modify it.
func (s *Store) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	return s.t.List(ctx, dir)
}

// Close releases the watches List holds and waits for the index saves
// under way; later Lists read the folders. The daemon calls it when it
// shuts down.
func (s *Store) Close() error { return s.t.Close() }

// WithCacheDir makes s keep the replays of big chat files in dir too (see
// lineindex.Cache.Persist), so that the first page of one after a restart needs
// no replay of it; it returns s.
func (s *Store) WithCacheDir(dir string) *Store {
	s.t.WithCacheDir(dir)
	return s
}

// WithWatcher makes List, Tail and Watch use w rather than the process's
// shared watcher; it returns s.
func (s *Store) WithWatcher(w *fswatch.Watcher) *Store {
	s.watcher = w
	s.t.WithWatcher(w)
	return s
}

// Stats says what s has read so far (see history.TreeStats).
func (s *Store) Stats() history.TreeStats { return s.t.Stats() }

// ProjectHash is the projectHash Gemini records for a session run in dir:
// the SHA-256 hex of the path string.
func ProjectHash(dir string) string {
	h := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(h[:])
}

// hashes are the project hashes of dir as given and as a canonical path:
// Gemini hashes the cwd string it was given, which cdevd passes canonical.
func hashes(dir string) projectHashes {
	c := dir
	if p, err := filepath.EvalSymlinks(dir); err == nil {
		c = p
	}
	return projectHashes{ProjectHash(filepath.Clean(dir)), ProjectHash(c)}
}

type projectHashes [2]string

func (h projectHashes) has(x string) bool { return x != "" && (x == h[0] || x == h[1]) }

// stampLen is the length of the stamp in session-<stamp>-<id8>.jsonl.
const stampLen = len("2006-01-02T15-04")

// shortID is the id8 of a chat file name, or "".
func shortID(name string) string {
	rest, ok := strings.CutPrefix(name, "session-")
	if !ok {
		return ""
	}
	rest, ok = strings.CutSuffix(rest, ".jsonl")
	if !ok || len(rest) < stampLen+2 || rest[stampLen] != '-' {
		return ""
	}
	return rest[stampLen+1:]
}

// id8 is the part of a session id Gemini puts in file names.
func id8(id string) string { return id[:min(8, len(id))] }

// chatPath is one chat file found by walk, and its version then.
type chatPath struct {
	path string
	fi   os.FileInfo
}

// walk lists the chat files in every tmp/*/chats directory whose name
// holds short (all when short is ""), reading only directories.
func (s *Store) walk(ctx context.Context, short string) ([]chatPath, error) {
	slugs, err := os.ReadDir(s.tmp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []chatPath
	for _, sl := range slugs {
		if !sl.IsDir() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := filepath.Join(s.tmp, sl.Name(), "chats")
		out = appendChats(out, dir, short)
	}
	return out, nil
}

// appendChats appends the chat files of dir whose name holds short (all
// when short is "").
func appendChats(out []chatPath, dir, short string) []chatPath {
	df, err := jsonl.OpenDir(dir)
	if err != nil {
		return out // no chats (yet), or removed meanwhile
	}
	defer df.Close()
	des, err := df.ReadDir(-1)
	if err != nil {
		return out
	}
	for _, de := range des {
		if id := shortID(de.Name()); id != "" && (short == "" || id == short) && de.Type().IsRegular() {
			path := filepath.Join(dir, de.Name())
			fi, err := os.Lstat(path)
			if err != nil {
				continue // removed since ReadDir
			}
			out = append(out, chatPath{path, fi})
		}
	}
	return out
}

// errChanged says a record is no longer where the cached replay has it.
var errChanged = errors.New("record changed")

// Has reports whether session id has a chat file with a user message
// recorded for dir.
func (s *Store) Has(ctx context.Context, dir, id string) bool {
	_, err := s.session(ctx, dir, id, true)
	return err == nil
}

// Trash moves every chat file of session id (those without user messages,
// which each load leaves, included) into bin.
func (s *Store) Trash(ctx context.Context, dir, id string, bin runtimes.Bin) error {
	ss, err := s.session(ctx, dir, id, true)
	if err != nil {
		return err
	}
	for _, f := range ss.files {
		if err := bin.Put(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		s.t.Forget(f.path)
	}
	return nil
}

// Messages returns a page of session id's messages and their number. With
// desc, offset counts from the newest message and the page is newest
// first. Only the page's records are converted. A page holds at most
// runtimes.PageBytes of records (at least one; a bigger one Omitted).
func (s *Store) Messages(ctx context.Context, dir, id string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("invalid page: offset %d, limit %d", offset, limit)
	}
	ss, err := s.session(ctx, dir, id, true)
	if err != nil {
		return nil, 0, err
	}
	total := ss.count()
	from := min(offset, total)
	to := from + min(limit, total-from) // offset+limit could overflow
	var es []*entry
	var called func(string) bool
	if len(ss.real) == 1 {
		v := ss.real[0].v
		es, called = v.page(from, to, desc), v.called
	} else {
		var msgs []*entry
		msgs, called = ss.messages()
		for i := from; i < to; i++ {
			j := i
			if desc {
				j = total - 1 - i
			}
			es = append(es, msgs[j])
		}
	}
	// Bounded by bytes too, before any is read: see runtimes.PageBytes.
	used := 0
	for i, e := range es {
		if used += e.n; i > 0 && used > runtimes.PageBytes {
			es = es[:i]
			break
		}
	}
	page := make([]rpc.Message, 0, len(es))
	fallback := ss.real[0].v.header.StartTime
	open := map[string]*os.File{}
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
			s.t.Forget(e.path)
			return nil, 0, fmt.Errorf("chat file %s changed while read: %w", e.path, err)
		}
		if m, ok := ToMessage(id, raw, called, fallback); ok {
			page = append(page, runtimes.Omitted(m, len(raw)))
		}
	}
	return page, total, nil
}

// stampFormat is the minute in a chat file's name, in UTC.
const stampFormat = "2006-01-02T15-04"

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
	for _, f := range ss.files {
		name := strings.TrimPrefix(filepath.Base(f.path), "session-")
		if len(name) < stampLen {
			continue
		}
		if t, err := time.Parse(stampFormat, name[:stampLen]); err == nil {
			out = append(out, t)
		}
	}
	return out, nil
}
