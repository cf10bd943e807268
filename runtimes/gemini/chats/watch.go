package chats

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/runtimes"
)

// Watch calls changed with the session id of every chat file of dir that
// is written and holds a user message (phantoms are not reported), until
// the Closer is closed. It watches the chats directories that already hold
// a file of dir, and the one Gemini would use for dir (tmp/<slug>/chats,
// the slug from projects.json, else the directory's base name), which need
// not exist yet.
func (s *Store) Watch(dir string, changed func(id string)) (io.Closer, error) {
	want := hashes(dir)
	dirs := map[string]bool{filepath.Join(s.tmp, s.slug(dir), "chats"): true}
	if paths, err := s.walk(context.Background(), ""); err == nil {
		for _, cp := range paths {
			ph, ok := s.t.Head(cp.path, cp.fi)
			if !ok {
				if x, err := s.t.Index(context.Background(), cp.path, cp.fi); err == nil {
					ph = x.header.ProjectHash
				}
			}
			if want.has(ph) {
				dirs[filepath.Dir(cp.path)] = true
			}
		}
	}
	w := &watch{}
	onFile := func(p string) {
		if shortID(filepath.Base(p)) == "" {
			return
		}
		fi, err := os.Stat(p)
		if err != nil {
			return
		}
		x, err := s.t.Index(context.Background(), p, fi)
		if err != nil {
			return
		}
		v := x.view(p)
		if !want.has(v.header.ProjectHash) || v.prompt == "" || runtimes.ValidSessionID(v.header.SessionID) != nil {
			return
		}
		changed(v.header.SessionID)
	}
	for d := range dirs {
		f, err := fswatch.Or(s.watcher).WatchFiles(d, onFile, nil)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.files = append(w.files, f)
	}
	return w, nil
}

// slug is the directory name Gemini files dir's chats under.
func (s *Store) slug(dir string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(s.tmp), "projects.json"))
	if err == nil {
		var p struct {
			Projects map[string]string `json:"projects"`
		}
		if json.Unmarshal(b, &p) == nil {
			if sl := p.Projects[dir]; sl != "" && filepath.Base(sl) == sl && sl != ".." && sl != "." {
				return sl
			}
		}
	}
	return filepath.Base(filepath.Clean(dir))
}

type watch struct {
	once  sync.Once
	files []*fswatch.Files
}

// Close stops watching; no changed call runs once it returns.
func (w *watch) Close() error {
	w.once.Do(func() {
		for _, f := range w.files {
			f.Close()
		}
	})
	return nil
}
