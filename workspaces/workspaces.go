// Package workspaces is the workspace service: it keeps the directories
// the user allowed sessions to run in, and owns the path boundary inside
// them (paths.go: Resolve), which every workspace-level feature (a
// session's cwd; files, git and search as they come) goes through. Paths are canonical (absolute, symlinks resolved) so that one
// directory has one id however it is named, ids are derived from the path so
// they survive restarts and re-adds, and the list is persisted with atomic
// writes so a crash never leaves a half-written file.
package workspaces

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// Workspace is one allowed directory.
type Workspace struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Path      string    `json:"path"`
	CreatedAt time.Time `json:"created_at"`
}

// Store is the persisted set of workspaces. It is safe for concurrent use.
type Store struct {
	file string

	mu   sync.RWMutex
	byID map[string]Workspace
}

// Open loads the store kept in file, which need not exist yet.
func Open(file string) (*Store, error) {
	s := &Store{file: file, byID: map[string]Workspace{}}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	var list []Workspace
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	for _, w := range list {
		s.byID[w.ID] = w
	}
	return s, nil
}

// IDFor is the stable id of a canonical path.
func IDFor(path string) string {
	sum := sha256.Sum256([]byte(path))
	return "ws_" + hex.EncodeToString(sum[:8])
}

// Add adds the directory at path (creating it when create is set) and
// returns its workspace; adding a known directory returns the existing one.
func (s *Store) Add(path, name string, create bool) (Workspace, error) {
	if path == "" {
		return Workspace{}, rpc.InvalidParams("path", "required")
	}
	given := path
	path, err := expandHome(path)
	if err != nil {
		return Workspace{}, rpc.InvalidPath(given, err.Error())
	}
	if !filepath.IsAbs(path) {
		return Workspace{}, rpc.InvalidPath(given, "must be absolute")
	}
	if create {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return Workspace{}, rpc.InvalidPath(given, err.Error())
		}
	}
	canon, err := canonicalDir(path)
	if err != nil {
		return Workspace{}, err
	}
	id := IDFor(canon)
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.byID[id]; ok {
		return w, nil
	}
	if name == "" {
		name = filepath.Base(canon)
	}
	w := Workspace{ID: id, Name: name, Path: canon, CreatedAt: time.Now().UTC().Truncate(time.Second)}
	s.byID[id] = w
	if err := s.saveLocked(); err != nil {
		delete(s.byID, id)
		return Workspace{}, err
	}
	return w, nil
}

// CheckDir refuses path as Add (without create) would, with the same
// error, and adds nothing: `cdevd service install` checks its
// --workspace flags with it.
func CheckDir(path string) error {
	_, err := canonicalDir(path)
	return err
}

// canonicalDir is the canonical form of path, an existing directory.
func canonicalDir(path string) (string, error) {
	canon, err := Canonical(path)
	if err != nil {
		return "", rpc.InvalidPath(path, "does not exist")
	}
	fi, err := os.Stat(canon)
	if err != nil {
		return "", rpc.InvalidPath(path, err.Error())
	}
	if !fi.IsDir() {
		return "", rpc.InvalidPath(path, "not a directory")
	}
	return canon, nil
}

// Remove forgets a workspace. Its directory, sessions and transcripts are untouched.
func (s *Store) Remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.byID[id]
	if !ok {
		return rpc.WorkspaceNotFound(id)
	}
	delete(s.byID, id)
	if err := s.saveLocked(); err != nil {
		s.byID[id] = w
		return err
	}
	return nil
}

// Get returns a workspace by id.
func (s *Store) Get(id string) (Workspace, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	w, ok := s.byID[id]
	if !ok {
		return Workspace{}, rpc.WorkspaceNotFound(id)
	}
	return w, nil
}

// List returns every workspace, by name then path.
func (s *Store) List() []Workspace {
	s.mu.RLock()
	list := make([]Workspace, 0, len(s.byID))
	for _, w := range s.byID {
		list = append(list, w)
	}
	s.mu.RUnlock()
	slices.SortFunc(list, func(a, b Workspace) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return list
}

// saveLocked writes the store atomically: a temp file in the same
// directory, synced, then renamed over the old one.
func (s *Store) saveLocked() error {
	list := make([]Workspace, 0, len(s.byID))
	for _, w := range s.byID {
		list = append(list, w)
	}
	slices.SortFunc(list, func(a, b Workspace) int { return strings.Compare(a.ID, b.ID) })
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(s.file, append(b, '\n'), 0o600)
}

// WriteFileAtomic replaces file with data so that readers see the old or
// the new content, never a mix, even if the daemon dies mid-write.
func WriteFileAtomic(file string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
