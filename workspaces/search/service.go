package search

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
	"github.com/cdevd/cdevd/workspaces/files"
)

// Query limits.
const (
	DefaultLimit = 50
	MaxLimit     = 500
	// maxQuery bounds a query's bytes: a fuzzy match of a longer one is
	// noise, and its cost grows with it.
	maxQuery = 256
)

// Config configures a Service.
type Config struct {
	Watcher *fswatch.Watcher // the daemon's one inotify instance (nil: the shared one)
	Logger  *zap.Logger
}

// Service holds one Index per workspace that was searched.
type Service struct {
	watcher *fswatch.Watcher
	log     *zap.Logger

	mu      sync.Mutex
	indexes map[string]*Index // by workspace path
	closed  bool
}

// New creates a Service; Close releases its indexes and watches.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	return &Service{watcher: fswatch.Or(cfg.Watcher), log: cfg.Logger, indexes: map[string]*Index{}}
}

// index returns w's index, building it on first use; concurrent first
// callers share the one build.
func (s *Service) index(ctx context.Context, w workspaces.Workspace) (*Index, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, rpc.Errorf(rpc.CodeInternalError, nil, "shutting down")
	}
	x := s.indexes[w.Path]
	first := x == nil
	if first {
		x = newIndex(w.Path, s.watcher, s.log)
		x.idle = time.AfterFunc(idleAfter, func() { s.drop(x) })
		s.indexes[w.Path] = x
	}
	s.mu.Unlock()
	if first {
		x.err = x.build()
		close(x.ready)
		if x.err != nil {
			s.drop(x) // the next query tries again
		}
	}
	select {
	case <-x.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if x.err != nil {
		return nil, rpc.Errorf(rpc.CodeInternalError, map[string]any{"reason": x.err.Error()},
			"cannot list the workspace's files: %v", x.err)
	}
	return x, nil
}

// drop forgets x and releases it.
func (s *Service) drop(x *Index) {
	s.mu.Lock()
	if s.indexes[x.root] == x {
		delete(s.indexes, x.root)
	}
	s.mu.Unlock()
	x.close()
}

// Forget drops the index of the workspace at path (a removed workspace).
func (s *Service) Forget(path string) {
	s.mu.Lock()
	x := s.indexes[path]
	s.mu.Unlock()
	if x != nil {
		s.drop(x)
	}
}

// Close releases every index; later queries fail.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	all := s.indexes
	s.indexes = map[string]*Index{}
	s.mu.Unlock()
	for _, x := range all {
		x.close()
	}
}

// GitState is what files.List needs of w's index: nil outside a git work
// tree. It waits (briefly, with ctx) for a rebuild that pending changes
// scheduled, so that a file just created is not reported ignored.
func (s *Service) GitState(ctx context.Context, w workspaces.Workspace) (files.GitState, error) {
	x, err := s.index(ctx, w)
	if err != nil {
		return nil, err
	}
	wait, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	snap := x.Fresh(wait)
	if snap == nil || !snap.git {
		return nil, nil
	}
	return snap, nil
}

// Search answers repository/search in w.
func (s *Service) Search(ctx context.Context, w workspaces.Workspace, p rpc.SearchParams) (rpc.SearchResult, error) {
	began := time.Now()
	q := strings.TrimSpace(p.Query)
	if q == "" {
		return rpc.SearchResult{}, rpc.InvalidParams("query", "required")
	}
	if len(q) > maxQuery {
		return rpc.SearchResult{}, rpc.InvalidParams("query", "at most 256 bytes")
	}
	mode := cmp.Or(p.Mode, "fuzzy")
	if mode != "fuzzy" {
		return rpc.SearchResult{}, rpc.InvalidParams("mode", "fuzzy is the only mode")
	}
	limit := cmp.Or(p.Limit, DefaultLimit)
	if limit < 0 || limit > MaxLimit {
		return rpc.SearchResult{}, rpc.InvalidParams("limit", "between 0 and 500")
	}
	x, err := s.index(ctx, w)
	if err != nil {
		return rpc.SearchResult{}, err
	}
	snap := x.current()
	// A few more than asked: exclude_binaries may drop some by content.
	top, total := snap.match(lowerASCII(q), limit+limit/4+4, p.ExcludeBinaries)
	res := rpc.SearchResult{Query: p.Query, Mode: mode, WorkspaceID: w.ID, Results: make([]rpc.SearchHit, 0, min(limit, len(top)))}
	for _, m := range top {
		if len(res.Results) == limit {
			break
		}
		e := &snap.entries[m.i]
		hit, ok := describe(w.Path, e, float64(m.score))
		if !ok {
			total-- // gone since the index was built
			continue
		}
		if p.ExcludeBinaries && hit.IsBinary {
			total--
			continue
		}
		res.Results = append(res.Results, hit)
	}
	res.Total = max(total, len(res.Results))
	res.HasMore = res.Total > len(res.Results)
	res.ElapsedMS = float64(time.Since(began).Microseconds()) / 1000
	return res, nil
}

// describe fills a hit from the file as it is now; ok is false if it is
// gone, or is not a regular file (a broken symlink, a directory now).
func describe(root string, e *entry, score float64) (rpc.SearchHit, bool) {
	abs := filepath.Join(root, filepath.FromSlash(e.path))
	info, err := os.Lstat(abs)
	if err != nil || info.IsDir() {
		return rpc.SearchHit{}, false
	}
	dir := ""
	if e.name > 0 {
		dir = e.path[:e.name-1]
	}
	name := e.path[e.name:]
	h := rpc.SearchHit{Path: e.path, Name: name, Directory: dir, Extension: files.Extension(name),
		SizeBytes: info.Size(), ModifiedAt: rpc.FormatTime(info.ModTime()), MatchScore: score,
		IsBinary: e.binary}
	if !h.IsBinary && info.Mode().IsRegular() {
		h.IsBinary = files.Sniff(abs)
	}
	return h, true
}
