package history

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

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
	mtime    time.Time // checked with DateTree.Rewrites only
	dir      string
}

// File is one file of the directory a List asked for, as DateTree.Group
// is given it: the session id its name holds, where it is, its index, and
// when it was written.
type File[P any] struct {
	ID, Path string
	X        P
	Modified time.Time
}

// List returns the sessions whose file records dir as their working
// directory (in a folder per directory, every session of dir's folder),
// newest first (by the file's modification time).
//
// While the watches of the tree say nothing in it changed since the last
// List of dir, that List's result is returned without reading anything;
// when the tree cannot be watched (the system's limit on watches is
// reached, say) every List reads it. Otherwise the tree is read: a file
// unchanged since the last call is not opened; the directory of one not
// seen before is read from its first line (for a big one) and remembered
// by the file's identity, so that only dir's files are indexed (a big file
// of another directory is never scanned for dir's history); one of dir
// that grew is read from where the last call stopped.
//
// The result is shared with later calls, not copied (a copy of 1,000
// summaries was two thirds of a List of an unchanged folder): callers must
// not modify its elements; appending to it copies it (its capacity is its
// length).
func (t *Tree[T, P]) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	root := t.root(dir)
	gen, ver, watched := t.generation(ctx, root, true)
	if watched {
		t.lmu.Lock()
		if tr := t.trees[root]; tr != nil && tr.ver == ver && tr.lists[dir] != nil && tr.lists[dir].at == gen {
			list := tr.lists[dir].list
			t.lmu.Unlock()
			return list, nil
		}
		t.lmu.Unlock()
	}
	list, dirs, err := t.read(ctx, root, dir)
	if err != nil {
		return nil, err
	}
	list = slices.Clip(list)
	t.track(root, dirs, gen, ver, watched, func(tr *tree) {
		// Generations only grow: a concurrent List that read under a later
		// one keeps its result.
		if l := tr.lists[dir]; l == nil || gen > l.at {
			tr.lists[dir] = &treeListing{at: gen, list: list}
		}
	})
	return list, nil
}

// match returns the test of whether a directory a file records is dir,
// or nil when every file under dir's root is dir's (a folder per
// directory).
func (t *Tree[T, P]) match(dir string) func(string) bool {
	if t.l.Dir == nil {
		return nil
	}
	match := t.matcher(dir)
	// Whether a recorded directory is dir, by directory: the files of one
	// folder resolve its symlinks once.
	mine := map[string]bool{}
	return func(rec string) bool {
		v, ok := mine[rec]
		if !ok {
			v = match(rec)
			mine[rec] = v
		}
		return v
	}
}

// matcher is the layout's test of whether a recorded directory is dir
// (DateTree.Match, else compared as canonical paths), remembering nothing:
// safe for concurrent use.
func (t *Tree[T, P]) matcher(dir string) func(string) bool {
	if t.l.Match != nil {
		return t.l.Match(dir)
	}
	want := canonical(dir)
	return func(rec string) bool { return inDir(rec, dir, func() string { return want }) }
}

// near is the folder where dir's files mostly are (DateTree.Near), or "".
func (t *Tree[T, P]) near(dir string) string {
	if t.l.Near == nil {
		return ""
	}
	return t.l.Near(dir)
}

// read lists dir's sessions under root from the disk (see List), and
// returns the folders it read.
func (t *Tree[T, P]) read(ctx context.Context, root, dir string) ([]runtimes.Summary, []string, error) {
	in, near := t.match(dir), t.near(dir)
	var out []summary[P]
	var files []File[P] // with Group
	var seen map[string]bool
	dirs, err := t.walk(ctx, root, "", func(r treeFile) error {
		if seen == nil { // sized by the first folder: all of dir's in a folder per directory
			seen = make(map[string]bool, r.entries)
			if t.l.Group == nil {
				out = make([]summary[P], 0, r.entries)
			}
		}
		sum, ok, err := t.take(ctx, r, in, near, seen)
		switch {
		case !ok:
		case t.l.Group != nil:
			files = append(files, File[P]{r.id, r.path, sum.x, sum.mtime})
		default:
			out = append(out, sum)
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	t.prune(root, seen)
	if t.l.Group != nil {
		return t.l.Group(files), dirs, nil
	}
	return newestFirst(out), dirs, nil
}

// take is the summary of the file r when it records the directory in
// accepts (nil: any), ok false when it does not or is gone. A file of
// another directory is known, where it can be, by its first line (see
// HeadMin, Near) and not indexed. It marks r seen (when seen is set) once
// it exists.
func (t *Tree[T, P]) take(ctx context.Context, r treeFile, in func(string) bool, near string, seen map[string]bool) (summary[P], bool, error) {
	fi, err := os.Lstat(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return summary[P]{}, false, nil // removed since the folder was read
	}
	if err != nil {
		return summary[P]{}, false, err
	}
	if seen != nil {
		seen[r.path] = true
	}
	if in != nil {
		rec, ok := t.knownDir(r.path, fi)
		if !ok && (t.l.HeadMin < 0 || fi.Size() > t.l.HeadMin) && filepath.Dir(r.path) != near {
			rec, ok = t.readHead(r.path)
		}
		if ok && !in(rec) {
			return summary[P]{}, false, nil // another directory's: not indexed
		}
	}
	sum, err := t.summarize(ctx, r.id, r.path, fi)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, jsonl.ErrNotRegular) {
		return summary[P]{}, false, nil
	}
	if err != nil {
		return summary[P]{}, false, err
	}
	if in != nil {
		// The index is what the file says now (a rewrite in place
		// shows here).
		rec := t.l.Dir(sum.x)
		t.rememberHead(r.path, fi, rec)
		if !in(rec) {
			return summary[P]{}, false, nil
		}
	}
	return sum, true, nil
}

// knownDir is the directory the file at p, in version fi, records, if
// remembered of that file.
func (t *Tree[T, P]) knownDir(p string, fi os.FileInfo) (string, bool) {
	dev, ino, ok := lineindex.FileKey(fi)
	if !ok {
		return "", false
	}
	t.hmu.Lock()
	defer t.hmu.Unlock()
	h, ok := t.heads[p]
	if !ok || h.dev != dev || h.ino != ino || fi.Size() < h.size || (t.l.Rewrites && (fi.Size() != h.size || !fi.ModTime().Equal(h.mtime))) {
		return "", false
	}
	h.size = fi.Size()
	t.heads[p] = h
	return h.dir, true
}

// Head is the directory (what Dir says) the file at p, in version fi,
// records, from what List remembers of it or else its first line; ok is
// false when only its index can tell.
func (t *Tree[T, P]) Head(p string, fi os.FileInfo) (string, bool) {
	if rec, ok := t.knownDir(p, fi); ok {
		return rec, true
	}
	return t.readHead(p)
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
		t.rememberHead(p, ofi, rec)
	}
	return rec, true
}

// rememberHead records that the file at p, in version fi, records the
// directory rec (when it names one).
func (t *Tree[T, P]) rememberHead(p string, fi os.FileInfo, rec string) {
	if dev, ino, ok := lineindex.FileKey(fi); ok && rec != "" {
		t.hmu.Lock()
		t.heads[p] = head{dev, ino, fi.Size(), fi.ModTime(), rec}
		t.hmu.Unlock()
	}
}

// firstLine reads f's first complete line, without its newline; ok is
// false when it has none within headMax bytes.
func firstLine(f *os.File) ([]byte, bool) {
	// Grown as needed: Gemini's header is 200 bytes, Codex's session_meta
	// 22 KB; 32 KB for every file of another project was most of what a
	// first Gemini List beside 2,000 of them allocated.
	buf := make([]byte, 0, 4<<10)
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
