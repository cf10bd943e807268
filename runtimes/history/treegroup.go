package history

// A session in several files (DateTree.Group): its files are found by the
// part of its id their names hold (Key), and known as its by what their
// index says (Session) or else by that name.

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/runtimes"
)

// Files returns the files of session id that record dir, indexed (those
// Group leaves out included), in a tree with Group. It reads every folder
// of the tree, unless List watches it and nothing in it changed since the
// last Files of the same session: the existence check before a page and
// the page then read them once.
func (t *Tree[T, P]) Files(ctx context.Context, dir, id string) ([]File[P], error) {
	if err := runtimes.ValidSessionID(id); err != nil {
		return nil, err
	}
	root := t.l.Root
	gen, ver, watched := t.generation(ctx, root, false)
	if watched {
		t.lmu.Lock()
		tr := t.trees[root]
		if tr != nil && tr.ver == ver && tr.found != nil && tr.found.at == gen && tr.found.dir == dir && tr.found.id == id {
			files := tr.found.files.([]File[P])
			t.lmu.Unlock()
			return files, nil
		}
		t.lmu.Unlock()
	}
	in, near, key := t.match(dir), t.near(dir), id
	if t.l.Key != nil {
		key = t.l.Key(id)
	}
	var files []File[P]
	dirs, err := t.walk(ctx, root, key, func(r treeFile) error {
		sum, ok, err := t.take(ctx, r, in, near, nil)
		if ok && (t.l.Session == nil || t.l.Session(sum.x) == id) {
			files = append(files, File[P]{r.id, r.path, sum.x, sum.mtime})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	t.track(root, dirs, gen, ver, watched, func(tr *tree) {
		if tr.found == nil || gen >= tr.found.at {
			tr.found = &treeFound{gen, dir, id, files}
		}
	})
	return files, nil
}

// grouped is Files of a session Group offers, else ErrNoSession.
func (t *Tree[T, P]) grouped(ctx context.Context, dir, id string) ([]File[P], error) {
	files, err := t.Files(ctx, dir, id)
	if err != nil {
		return nil, err
	}
	if len(t.l.Group(files)) == 0 {
		return nil, noSession(id, nil)
	}
	return files, nil
}

// trashAll is Trash with Group: every file of the session moves, those
// Group leaves out (Gemini's phantoms, which each load leaves) included.
func (t *Tree[T, P]) trashAll(ctx context.Context, dir, id string, bin runtimes.Bin) error {
	files, err := t.grouped(ctx, dir, id)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := bin.Put(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		t.Forget(f.Path)
	}
	return nil
}

// watchFolders is Watch with Group: it watches dir's folder (Near, which
// need not exist yet) and every other folder that holds a file recording
// dir, and reports the session Group offers of each file written there.
func (t *Tree[T, P]) watchFolders(dir string, changed func(id string)) (io.Closer, error) {
	ctx := context.Background()
	near, in := t.near(dir), t.match(dir)
	dirs := map[string]bool{}
	if near != "" {
		dirs[near] = true
	}
	// A folder the walk cannot read is left out, as one made later is.
	_, _ = t.walk(ctx, t.l.Root, "", func(r treeFile) error {
		if d := filepath.Dir(r.path); !dirs[d] {
			_, dirs[d], _ = t.take(ctx, r, in, near, nil)
		}
		return nil
	})
	is := t.matcher(dir) // in remembers, unguarded: the folders' callbacks run concurrently
	onFile := func(p string) {
		id := t.l.ID(filepath.Base(p))
		if id == "" {
			return
		}
		fi, err := os.Stat(p)
		if err != nil {
			return
		}
		x, err := t.Index(ctx, p, fi)
		if err != nil || !is(t.l.Dir(x)) {
			return
		}
		for _, s := range t.l.Group([]File[P]{{id, p, x, fi.ModTime()}}) {
			changed(s.SessionID)
		}
	}
	var w folderWatch
	for d, mine := range dirs {
		if !mine {
			continue
		}
		f, err := fswatch.Or(t.watcher).WatchFiles(d, onFile, nil)
		if err != nil {
			w.Close()
			return nil, err
		}
		w = append(w, f)
	}
	return w, nil
}

// folderWatch is the watches of watchFolders.
type folderWatch []*fswatch.Files

// Close stops watching; no changed call runs once it returns.
func (w folderWatch) Close() error {
	for _, f := range w {
		f.Close()
	}
	return nil
}
