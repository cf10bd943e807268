package history

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
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
	// (Gemini): it must return them newest first, leaving out a session it
	// does not offer (one without a user message, say). nil: one per file.
	// With Group, a session is what Files finds (see treegroup.go).
	Group func(files []File[P]) []runtimes.Summary
	// Key, when set, is the part of session id that its files' names hold
	// (what ID returns of them: Gemini's first eight characters); nil: the
	// whole id.
	Key func(id string) string
	// Session, when set, is the session id an index says its file belongs
	// to, for names that hold only part of it (Key); nil: its name's.
	Session func(x P) string
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

// Layout is the layout of one file per session, named <id><Ext>, in a
// folder per working directory (Claude Code's): a tree of one level whose
// root is dir's folder, every file of it dir's (see NewFolders).
type Layout struct {
	// Folder is where the sessions run in dir are kept.
	Folder func(dir string) string
	// Ext is a session file's suffix (".jsonl").
	Ext string
	// IsID reports whether a file's name without Ext names a session: other
	// files in the folder are not listed.
	IsID func(id string) bool
}

// Folders is the Tree of a format whose files are kept as Layout says.
type Folders[T any, P Index[T]] = Tree[T, P]

// NewFolders returns the Tree of the sessions f describes, kept as l says:
// List reads dir's folder only and lists every session file in it, and a
// session's file is known by its name without looking for it.
func NewFolders[T any, P Index[T]](f Format[T, P], l Layout, o Options) *Folders[T, P] {
	id := func(name string) string {
		if id, ok := strings.CutSuffix(name, l.Ext); ok && l.IsID(id) {
			return id
		}
		return ""
	}
	return newTree(f, DateTree[P]{ID: id}, o, kit.FilePerSession{Folder: l.Folder, Ext: l.Ext, Watcher: o.Watcher})
}

// treeFile is one file found by walk.
type treeFile struct {
	id, path string
	entries  int // in its folder
}

// walk lists every file under root (Root/YYYY/MM/DD for a date tree),
// reading only the folders, calling each with every session's file while
// its folder is open, and remembers where each session's file is. It
// returns the folders it read. With a nil each, it lists the folders only,
// not reading those of the last level (the files' folders). With only
// set, each is called with the files whose name holds that id only (a
// path made for every file was most of what Files allocated).
func (t *Tree[T, P]) walk(ctx context.Context, root, only string, each func(r treeFile) error) ([]string, error) {
	if each != nil {
		t.dirReads.Add(1)
	}
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
		if each == nil && depth == t.l.Depth {
			return nil
		}
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
			if id == "" || !de.Type().IsRegular() || (only != "" && id != only) {
				continue
			}
			r := treeFile{id, filepath.Join(dir, de.Name()), len(des)}
			if t.byDir.Folder == nil { // a folder per directory: known by its name
				t.remember(id, r.path)
			}
			if err := each(r); err != nil {
				return err
			}
		}
		return nil
	}
	err := visit(root, 0)
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

// Locate returns the file of session id, in a date tree. A known path is
// checked with one stat; an unknown id is looked for in the day folders of
// its creation time, then (not there, or the id does not say) by a walk of
// them all.
func (t *Tree[T, P]) Locate(id string) (string, bool) {
	p, _, ok := t.locate(id)
	return p, ok
}

// locate is Locate, with the file's metadata.
func (t *Tree[T, P]) locate(id string) (string, os.FileInfo, bool) {
	if runtimes.ValidSessionID(id) != nil || t.byDir.Folder != nil {
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
	if _, err := t.walk(context.Background(), t.l.Root, "", func(treeFile) error { return nil }); err != nil {
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
// directory, with its up-to-date index, in a date tree. The error wraps
// runtimes.ErrNoSession when there is none.
func (t *Tree[T, P]) Find(ctx context.Context, dir, id string) (string, P, error) {
	if err := runtimes.ValidSessionID(id); err != nil {
		return "", nil, err
	}
	p, fi, ok := t.locate(id)
	if !ok {
		return "", nil, noSession(id, nil)
	}
	x, err := t.Index(ctx, p, fi)
	if errors.Is(err, jsonl.ErrNotRegular) {
		return "", nil, noSession(id, err) // a FIFO in its place since it was found, say
	}
	if err != nil {
		return "", nil, err
	}
	if !inDir(t.l.Dir(x), dir, func() string { return canonical(dir) }) {
		return "", nil, noSession(id, nil)
	}
	return p, x, nil
}

// Path is session id's file if it records dir as its working directory
// (in a folder per directory, if it is a regular file there). The error
// wraps runtimes.ErrNoSession when there is none.
func (t *Tree[T, P]) Path(dir, id string) (string, error) {
	if t.byDir.Folder != nil {
		return t.byDir.Path(dir, id)
	}
	p, _, err := t.Find(context.Background(), dir, id)
	return p, err
}

// Has reports whether session id has a file that records dir (with Group,
// whether Group offers it).
func (t *Tree[T, P]) Has(ctx context.Context, dir, id string) bool {
	if t.l.Group != nil {
		_, err := t.grouped(ctx, dir, id)
		return err == nil
	}
	_, err := t.Path(dir, id)
	return err == nil
}

// Trash moves session id's file into bin (with Group, every file of it).
func (t *Tree[T, P]) Trash(ctx context.Context, dir, id string, bin runtimes.Bin) error {
	if t.l.Group != nil {
		return t.trashAll(ctx, dir, id, bin)
	}
	p, err := t.Path(dir, id)
	if err != nil {
		return err
	}
	if err := bin.Put(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noSession(id, nil)
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
