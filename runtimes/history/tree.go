package history

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
// canonical paths). Every func must be set.
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
	// days either side, before every folder is read.
	Created func(id string) (time.Time, bool)
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

// headMin is the size up to which List indexes a file of a directory not
// known yet rather than read its first line: a real Codex session_meta is
// about 22 KB, so a small rollout costs about as much to index as its head
// to read, and reading both made a first history of 1,000 small rollouts
// of its own workspace slower (141 ms against 105 ms before List read
// heads, bench codex-history-first, one run).
const headMin = 64 << 10

// headMax bounds the first line List reads to learn a file's directory; a
// longer one is left to the index.
const headMax = 1 << 20

// head is what List remembers of a file's first line: the directory it
// records. It is written once, first, and never changed, so while the file
// is the same one (same identity, not shorter than it was) its directory
// is known without opening it. A file replaced under the same name is a
// new identity; one truncated and rewritten in place with another
// directory, at least as long as before, is not told apart (the CLI only
// ever appends).
type head struct {
	dev, ino uint64
	size     int64
	dir      string
}

// treeFile is one file found by walk: its name in the open day folder dir,
// so that List stats it relative to dir (fstatat) rather than by its path.
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
			if depth < 3 {
				if de.IsDir() {
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

// read lists dir's sessions from the disk (see List), and returns the
// folders of the tree it read.
func (t *Tree[T, P]) read(ctx context.Context, dir string) ([]runtimes.Summary, []string, error) {
	want := canonical(dir)
	// Whether a recorded directory is dir, by directory: the files of one
	// folder resolve its symlinks once.
	mine := map[string]bool{}
	in := func(rec string) bool {
		v, ok := mine[rec]
		if !ok {
			v = inDir(rec, dir, func() string { return want })
			mine[rec] = v
		}
		return v
	}
	out := []summary[P]{}
	seen := map[string]bool{}
	dirs, err := t.walk(ctx, func(r treeFile) error {
		fi, err := jsonl.StatAt(r.dir, r.name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed since the folder was read
		}
		if err != nil {
			return err
		}
		seen[r.path] = true
		rec, ok := t.knownDir(r.path, fi)
		if !ok && (t.l.HeadMin < 0 || fi.Size() > t.l.HeadMin) {
			rec, ok = t.readHead(r.path)
		}
		if ok && !in(rec) {
			return nil // another directory's: not indexed
		}
		sum, mtime, x, err := t.Summary(ctx, r.id, r.path, fi)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rec = t.l.Dir(x)
		if dev, ino, ok := jsonl.FileKey(fi); ok && rec != "" {
			// The index is what the file says now (a rewrite in place
			// shows here).
			t.hmu.Lock()
			t.heads[r.path] = head{dev, ino, fi.Size(), rec}
			t.hmu.Unlock()
		}
		if in(rec) {
			out = append(out, summary[P]{sum, mtime, x})
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	t.prune(seen)
	slices.SortFunc(out, func(a, b summary[P]) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return cmp.Compare(a.SessionID, b.SessionID)
	})
	res := make([]runtimes.Summary, len(out))
	for i, l := range out {
		res[i] = l.Summary
	}
	return res, dirs, nil
}

// prune forgets the cached indexes, heads and summaries of files the last
// walk did not see.
func (t *Tree[T, P]) prune(seen map[string]bool) {
	drop := func(p string) bool { return !seen[p] }
	t.Prune(drop)
	t.hmu.Lock()
	defer t.hmu.Unlock()
	for p := range t.heads {
		if drop(p) {
			delete(t.heads, p)
		}
	}
}

// knownDir is the directory the file at p, in version fi, records, if
// remembered of that file.
func (t *Tree[T, P]) knownDir(p string, fi os.FileInfo) (string, bool) {
	dev, ino, ok := jsonl.FileKey(fi)
	if !ok {
		return "", false
	}
	t.hmu.Lock()
	defer t.hmu.Unlock()
	h, ok := t.heads[p]
	if !ok || h.dev != dev || h.ino != ino || fi.Size() < h.size {
		return "", false
	}
	h.size = fi.Size()
	t.heads[p] = h
	return h.dir, true
}

// readHead reads the directory the file at p records from its first line,
// as the format's Add takes it, and remembers it; ok is false when only
// its index can tell (no complete first line naming one).
func (t *Tree[T, P]) readHead(p string) (string, bool) {
	f, err := jsonl.OpenRegular(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, ok := firstLine(f)
	t.headBytes.Add(int64(len(line)))
	if !ok {
		return "", false
	}
	x := P(new(T))
	t.f.Add(x, line)
	rec := t.l.Dir(x)
	if rec == "" {
		return "", false
	}
	// The identity of what was read, not of what was stat'ed before.
	if ofi, err := f.Stat(); err == nil {
		if dev, ino, ok := jsonl.FileKey(ofi); ok {
			t.hmu.Lock()
			t.heads[p] = head{dev, ino, ofi.Size(), rec}
			t.hmu.Unlock()
		}
	}
	return rec, true
}

// firstLine reads f's first complete line, without its newline; ok is
// false when it has none within headMax bytes.
func firstLine(f *os.File) ([]byte, bool) {
	buf := make([]byte, 0, 32<<10)
	for len(buf) < headMax {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), headMax-len(buf)))
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		prev := len(buf)
		buf = buf[:prev+n]
		if i := bytes.IndexByte(buf[prev:], '\n'); i >= 0 {
			return buf[:prev+i], true
		}
		if err != nil || n == 0 {
			return buf, false
		}
	}
	return buf, false
}
