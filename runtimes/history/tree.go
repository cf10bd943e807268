package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes"
)

// DateTree is the layout of files filed under the day their session was
// created, Root/YYYY/MM/DD/<name>, each recording inside it the working
// directory it ran in (Codex's rollouts). Unlike Layout's, a session is
// not filed by working directory: List walks every day's folder and keeps
// the files whose recorded directory is the one asked (compared as
// canonical paths). ID and Dir must be set; the other fields adapt the
// layout to other trees of that kind (Gemini's tmp/<project>/chats).
type DateTree[P any] struct {
	// Root is the tree's top folder (<codex home>/sessions).
	Root string
	// ID is the session id a file's name holds, or "" for a file that is
	// not a session's. It must return only ids runtimes.ValidSessionID
	// accepts.
	ID func(name string) string
	// Dir is the working directory an index says its file records, or ""
	// when it does not say. Reading a file's first line alone must tell it
	// (see HeadMin).
	Dir func(x P) string
	// Created is when session id was created, if the id says (Codex's
	// UUIDv7 ids do): its file is looked for in that day's folder, and the
	// days either side, before every folder is read. nil: ids do not say.
	Created func(id string) (time.Time, bool)
	// Depth is how many levels of folders lie between Root and the files
	// (0: 3, YYYY/MM/DD). Enter, when set, says which entries of a folder
	// of a level (1 for Root's) List goes into (a link to a folder, say);
	// nil: every folder, links not followed.
	Depth int
	Enter func(level int, de fs.DirEntry) bool
	// Match, when set, returns the test of whether a value Dir says is
	// dir's, for a CLI that records something else than the directory's
	// path (Gemini, a hash of it); nil: compared as canonical paths.
	Match func(dir string) func(recorded string) bool
	// Group, when set, makes a List's sessions of dir's files (all it
	// found, in no order), for a CLI that keeps a session in several files
	// (Gemini): it must return them newest first. nil: one per file.
	Group func(files []File[P]) []runtimes.Summary
	// Near, when set, is the folder where dir's files mostly are (Gemini's
	// tmp/<slug>/chats): List indexes those without reading their first
	// line before, whatever HeadMin says.
	Near func(dir string) string
	// Rewrites says that the CLI can rewrite a file in place with the same
	// size (Gemini, when a session is loaded in the minute it began): what
	// List remembers of a file's first line then holds only while the
	// file's time is unchanged too.
	Rewrites bool
	// MaxWatchedDirs bounds the folders List watches (0: maxWatchedDirs).
	MaxWatchedDirs int
	// HeadMin is the size above which List reads a file's first line to
	// learn its directory rather than index it (0: headMin; negative: every
	// file's).
	HeadMin int64
}

// Tree is the Store of a format whose files are kept as a DateTree says:
// the whole of runtimes.Transcripts. It remembers where each session's
// file is, and the directory each file records by the file's identity, so
// that List indexes only the files of the directory asked.
type Tree[T any, P Index[T]] struct {
	*Store[T, P]
	l DateTree[P]

	mu    sync.Mutex
	paths map[string]string // file by session id

	// The directory each file records, by path, as long as the file is the
	// same one (see head).
	hmu   sync.Mutex
	heads map[string]head

	// List's watch of the tree and its last result per directory.
	lmu       sync.Mutex
	tr        tree
	idle      time.Duration
	afterFunc func(time.Duration, func()) *time.Timer
	closed    bool // Close was called: List watches nothing

	headBytes, walks atomic.Int64
}

// NewTree returns the Store of the sessions f describes, kept as l says.
func NewTree[T any, P Index[T]](f Format[T, P], l DateTree[P], o Options) *Tree[T, P] {
	if l.MaxWatchedDirs == 0 {
		l.MaxWatchedDirs = maxWatchedDirs
	}
	if l.HeadMin == 0 {
		l.HeadMin = headMin
	}
	if l.Depth == 0 {
		l.Depth = 3
	}
	t := &Tree[T, P]{l: l, paths: map[string]string{}, heads: map[string]head{},
		tr:   tree{gens: map[string]*fswatch.Gen{}, lists: map[string]*treeListing{}},
		idle: cmp.Or(o.ListIdle, listIdle), afterFunc: o.AfterFunc}
	if t.afterFunc == nil {
		t.afterFunc = time.AfterFunc
	}
	t.Store = New(f, t.Path, o)
	return t
}

// WithWatcher makes Tail, Watch and List watch through w rather than the
// process's shared watcher; it returns t. Call it before using t.
func (t *Tree[T, P]) WithWatcher(w *fswatch.Watcher) *Tree[T, P] {
	t.Store.WithWatcher(w)
	return t
}

// TreeStats are a Tree's Stats and what its listing read besides.
type TreeStats struct {
	Stats
	Walks     int64 // reads of every folder of the tree
	HeadBytes int64 // bytes read from files' first lines
	Watched   int   // folders List watches
}

// Stats says what t has read so far.
func (t *Tree[T, P]) Stats() TreeStats {
	t.lmu.Lock()
	watched := len(t.tr.gens)
	t.lmu.Unlock()
	return TreeStats{t.Store.Stats(), t.walks.Load(), t.headBytes.Load(), watched}
}

// treeFile is one file found by walk: its name in the open day folder dir
// (for jsonl.StatAt).
type treeFile struct {
	id, path, name string
	dir            *os.File
}

// walk lists every file under Root/YYYY/MM/DD, reading only the folders,
// calling each (when not nil) with every session's file while its folder
// is open, and remembers where each session's file is. It returns the
// folders it read.
func (t *Tree[T, P]) walk(ctx context.Context, each func(r treeFile) error) ([]string, error) {
	t.walks.Add(1)
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
			if depth < t.l.Depth {
				if t.enters(depth+1, de) {
					if err := visit(filepath.Join(dir, de.Name()), depth+1); err != nil {
						return err
					}
				}
				continue
			}
			id := t.l.ID(de.Name())
			if id == "" || !de.Type().IsRegular() {
				continue
			}
			r := treeFile{id, filepath.Join(dir, de.Name()), de.Name(), f}
			t.remember(id, r.path)
			if each != nil {
				if err := each(r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := visit(t.l.Root, 0)
	return dirs, err
}

// enters reports whether walk goes into the entry de of a folder of the
// level before level.
func (t *Tree[T, P]) enters(level int, de fs.DirEntry) bool {
	if t.l.Enter == nil {
		return de.IsDir()
	}
	return t.l.Enter(level, de)
}

// remember records that session id's file is at p ("": forget it).
func (t *Tree[T, P]) remember(id, p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p == "" {
		delete(t.paths, id)
	} else {
		t.paths[id] = p
	}
}

// Locate returns the file of session id. A known path is checked with one
// stat; an unknown id is looked for in the day folders of its creation
// time, then (not there, or the id does not say) by a walk of them all.
func (t *Tree[T, P]) Locate(id string) (string, bool) {
	p, _, ok := t.locate(id)
	return p, ok
}

// locate is Locate, with the file's metadata.
func (t *Tree[T, P]) locate(id string) (string, os.FileInfo, bool) {
	if runtimes.ValidSessionID(id) != nil {
		return "", nil, false
	}
	t.mu.Lock()
	p, ok := t.paths[id]
	t.mu.Unlock()
	if ok {
		if fi, err := os.Stat(p); err == nil {
			return p, fi, true
		}
		t.remember(id, "")
	}
	if p, fi, ok := t.atCreation(id); ok {
		t.remember(id, p)
		return p, fi, true
	}
	if _, err := t.walk(context.Background(), nil); err != nil {
		t.log.Warn("walk "+t.f.What+"s", zap.Error(err))
		return "", nil, false
	}
	t.mu.Lock()
	p, ok = t.paths[id]
	t.mu.Unlock()
	if !ok {
		return "", nil, false
	}
	fi, err := os.Stat(p)
	return p, fi, err == nil
}

// atCreation looks for session id's file in the day folders its creation
// time names, reading two or three folders where a walk reads them all
// (68% of a first page of a 1 MB rollout among 200 others, by pprof of
// Codex's BenchmarkFirstPage). The days either side cover a CLI run in
// another time zone, and the first turn (which creates the file) coming
// after midnight.
func (t *Tree[T, P]) atCreation(id string) (string, os.FileInfo, bool) {
	if t.l.Created == nil {
		return "", nil, false
	}
	created, ok := t.l.Created(id)
	if !ok {
		return "", nil, false
	}
	for _, d := range []int{0, -1, 1} {
		dir := t.dayDir(created.AddDate(0, 0, d))
		f, err := jsonl.OpenDir(dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1) // unsorted, no stat: one match is wanted
		f.Close()
		for _, n := range names {
			if strings.Contains(n, id) && t.l.ID(n) == id {
				p := filepath.Join(dir, n)
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					return p, fi, true
				}
			}
		}
	}
	return "", nil, false
}

// dayDir is the folder of the day of time day.
func (t *Tree[T, P]) dayDir(day time.Time) string {
	return filepath.Join(t.l.Root, day.Format("2006"), day.Format("01"), day.Format("02"))
}

// Find returns session id's file if it records dir as its working
// directory, with its up-to-date index. The error wraps
// runtimes.ErrNoSession when there is none.
func (t *Tree[T, P]) Find(ctx context.Context, dir, id string) (string, P, error) {
	if err := runtimes.ValidSessionID(id); err != nil {
		return "", nil, err
	}
	p, fi, ok := t.locate(id)
	if !ok {
		return "", nil, noTreeSession(id)
	}
	x, err := t.Index(ctx, p, fi)
	if errors.Is(err, jsonl.ErrNotRegular) {
		return "", nil, fmt.Errorf("%w: %w", noTreeSession(id), err) // a FIFO in its place since it was found, say
	}
	if err != nil {
		return "", nil, err
	}
	if !inDir(t.l.Dir(x), dir, func() string { return canonical(dir) }) {
		return "", nil, noTreeSession(id)
	}
	return p, x, nil
}

// Path is session id's file if it records dir as its working directory.
// The error wraps runtimes.ErrNoSession when there is none.
func (t *Tree[T, P]) Path(dir, id string) (string, error) {
	p, _, err := t.Find(context.Background(), dir, id)
	return p, err
}

// noTreeSession is the error for a session without a file of dir.
func noTreeSession(id string) error {
	return fmt.Errorf("session %s: %w", id, runtimes.ErrNoSession)
}

// Has reports whether session id has a file that records dir.
func (t *Tree[T, P]) Has(_ context.Context, dir, id string) bool {
	_, err := t.Path(dir, id)
	return err == nil
}

// Trash moves session id's file into bin.
func (t *Tree[T, P]) Trash(_ context.Context, dir, id string, bin runtimes.Bin) error {
	p, err := t.Path(dir, id)
	if err != nil {
		return err
	}
	if err := bin.Put(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noTreeSession(id)
		}
		return err
	}
	t.remember(id, "")
	t.Forget(p)
	return nil
}

// canonical is path with symlinks resolved where it exists, else cleaned:
// a workspace opened through a symlink is the same folder.
func canonical(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// inDir reports whether recorded, a file's recorded directory, is the
// folder dir, whose canonical form canonDir returns: as written, else once
// symlinks are resolved. A recorded directory is resolved when asked, not
// when indexed (a stat per path component, 27% of indexing a small rollout
// in a cold List, by pprof of Codex's BenchmarkListCold), so that List
// resolves each distinct one once a call.
func inDir(recorded, dir string, canonDir func() string) bool {
	return recorded != "" && (filepath.Clean(recorded) == filepath.Clean(dir) || canonical(recorded) == canonDir())
}
