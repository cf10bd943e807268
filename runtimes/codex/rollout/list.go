package rollout

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/runtimes"
)

// fileID is a file's identity (device and inode); ok is false where the
// platform does not say.
type fileID struct {
	dev, ino uint64
	ok       bool
}

// head is what List remembers of a rollout's first line: the workspace it
// records. A session_meta is written once, first, and never changed, so
// while the file is the same one (same identity, not shorter than it was)
// its workspace is known without opening it. A file replaced under the
// same name is a new identity; one truncated and rewritten in place with
// another workspace, at least as long as before, is not told apart (the
// CLI only ever appends).
type head struct {
	id   fileID
	size int64
	cwd  string
}

// headMin is the size up to which List indexes a rollout of a workspace
// not known yet rather than read its first line: a real session_meta is
// about 22 KB, so a small rollout costs about as much to index as its head
// to read, and reading both made a first history of 1,000 small rollouts
// of its own workspace slower (141 ms against 105 ms before List read
// heads, bench codex-history-first, one run).
const headMin = 64 << 10

// headMax bounds the first line List reads to learn a rollout's workspace
// (a real session_meta is about 22 KB); a longer one is left to the index.
const headMax = 1 << 20

// maxWatchedDirs bounds the directories of the sessions tree List watches.
// Each is one inotify watch, counted against the user's
// fs.inotify.max_user_watches, which every program of the user (editors,
// file managers, other daemons) shares, and which is 8,192 on many
// systems; a year of daily use is about 380 directories (root, years,
// months, days). Above the bound List stats every rollout instead, as it
// does when the system refuses a watch.
const maxWatchedDirs = 1024

// listIdle is how long the tree's watches outlive the last List: a client
// refreshing its history keeps them, a daemon no one asks holds none.
const listIdle = time.Minute

// refusedRetry is how long List goes on statting every rollout, after a
// watch was refused or the tree was too big, before it tries watching again.
const refusedRetry = 30 * time.Second

// listing is List's last result for one workspace.
type listing struct {
	at   uint64 // the tree's generation it was read under
	list []runtimes.Summary
}

// tree is List's watch of the sessions tree: a change counter for every
// directory of it (root, years, months, days), since Codex files a rollout
// under the day it was created but appends to it on every resume.
type tree struct {
	gens    map[string]*fswatch.Gen // by directory; empty: not watched
	ver     uint64                  // moved whenever gens changes
	refused time.Time               // when watching was last refused
	timer   *time.Timer             // releases the watches once List is idle
	lists   map[string]*listing     // by workspace, as asked
}

// generation returns the tree's current generation: one barrier (Now of
// the root) then the count of every directory, whose largest value moves
// whenever any of them changes (fswatch's counts come from one increasing
// counter). ver is the set of directories it covers; watched is false
// when List must read the tree.
func (s *Store) generation(ctx context.Context) (gen, ver uint64, watched bool) {
	s.lmu.Lock()
	if s.closed {
		s.lmu.Unlock()
		return 0, 0, false
	}
	t := &s.tr
	if t.timer == nil {
		t.timer = s.afterFunc(s.idle, s.release)
	} else {
		t.timer.Reset(s.idle)
	}
	if len(t.gens) == 0 && time.Since(t.refused) >= refusedRetry {
		g, err := fswatch.Or(s.Watcher()).WatchGen(s.sessions)
		switch {
		case err == nil:
			t.gens[s.sessions] = g
			t.ver++
		case errors.Is(err, fs.ErrNotExist):
			// No rollouts yet: nothing to read either.
		default:
			s.refuseLocked(err)
		}
	}
	root := t.gens[s.sessions]
	if root == nil {
		s.lmu.Unlock()
		return 0, 0, false
	}
	ver = t.ver
	others := make([]*fswatch.Gen, 0, len(t.gens)-1)
	for d, g := range t.gens {
		if d != s.sessions {
			others = append(others, g)
		}
	}
	s.lmu.Unlock()
	gen, err := root.Now(ctx)
	if err != nil {
		if ctx.Err() == nil {
			// The tree was removed or replaced, or the count is unsure:
			// this List reads it, the next one watches it afresh.
			s.log.Debug("history: rollouts tree watch lost", zap.String("dir", s.sessions), zap.Error(err))
			s.unwatch(ver)
		}
		return 0, 0, false
	}
	var lost []*fswatch.Gen
	for _, g := range others {
		n, err := g.Seen()
		if err != nil {
			lost = append(lost, g)
			continue
		}
		gen = max(gen, n)
	}
	if len(lost) > 0 {
		// Directories removed or moved (their parents changed too): this
		// List reads the tree, and watches afresh those still there.
		s.lmu.Lock()
		for d, g := range s.tr.gens {
			if slices.Contains(lost, g) {
				delete(s.tr.gens, d)
				s.tr.ver++
			}
		}
		s.lmu.Unlock()
		closeAll(lost)
		return 0, 0, false
	}
	return gen, ver, true
}

// refuseLocked gives up watching the tree for refusedRetry.
func (s *Store) refuseLocked(err error) {
	s.tr.refused = time.Now()
	s.log.Debug("history: cannot watch the rollouts tree, so every history call stats each rollout",
		zap.String("dir", s.sessions), zap.Error(err))
}

// unwatch drops every watch of the tree if its set of directories is
// still ver.
func (s *Store) unwatch(ver uint64) {
	s.lmu.Lock()
	if s.tr.ver != ver {
		s.lmu.Unlock()
		return
	}
	gens := s.dropLocked()
	s.lmu.Unlock()
	closeAll(gens)
}

// dropLocked forgets the tree's watches and listings, returning the
// watches for the caller to close once s.lmu is released.
func (s *Store) dropLocked() []*fswatch.Gen {
	t := &s.tr
	gens := make([]*fswatch.Gen, 0, len(t.gens))
	for _, g := range t.gens {
		gens = append(gens, g)
	}
	clear(t.gens)
	clear(t.lists)
	t.ver++
	return gens
}

func closeAll(gens []*fswatch.Gen) {
	for _, g := range gens {
		g.Close()
	}
}

// release drops the tree's watches once List has not used them for
// s.idle.
func (s *Store) release() {
	s.lmu.Lock()
	gens := s.dropLocked()
	s.tr.timer = nil
	s.lmu.Unlock()
	closeAll(gens)
}

// Close releases the watches List holds; later Lists stat every rollout.
// The daemon calls it when it shuts down.
func (s *Store) Close() error {
	s.lmu.Lock()
	s.closed = true
	if s.tr.timer != nil {
		s.tr.timer.Stop()
		s.tr.timer = nil
	}
	gens := s.dropLocked()
	s.lmu.Unlock()
	closeAll(gens)
	return s.Store.Close() // the index saves under way
}

// track makes the tree's watches the directories dirs that a read found,
// and keeps list as dir's listing when every one of them was watched
// under generation gen (ver unchanged): a directory watched only now may
// have changed before its watch, so that listing is not kept, and the
// next List reads the tree once more.
func (s *Store) track(dirs []string, gen, ver uint64, watched bool, dir string, list []runtimes.Summary) {
	s.lmu.Lock()
	t := &s.tr
	if s.closed || t.gens[s.sessions] == nil {
		s.lmu.Unlock()
		return
	}
	var drop []*fswatch.Gen
	if len(dirs) > s.maxDirs {
		drop = s.dropLocked()
		s.refuseLocked(errors.New("more directories than maxWatchedDirs"))
		s.lmu.Unlock()
		closeAll(drop)
		return
	}
	found := make(map[string]bool, len(dirs))
	changed := false
	for _, d := range dirs {
		found[d] = true
		if t.gens[d] != nil {
			continue
		}
		g, err := fswatch.Or(s.Watcher()).WatchGen(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since it was read: its parent changed
		}
		if err != nil {
			drop = s.dropLocked()
			s.refuseLocked(err)
			s.lmu.Unlock()
			closeAll(drop)
			return
		}
		t.gens[d] = g
		changed = true
	}
	for d, g := range t.gens {
		if !found[d] && d != s.sessions {
			delete(t.gens, d)
			drop = append(drop, g)
			changed = true
		}
	}
	if changed {
		t.ver++
	}
	if watched && t.ver == ver {
		// Generations only grow: a concurrent List that read under a later
		// one keeps its result.
		if l := t.lists[dir]; l == nil || gen > l.at {
			t.lists[dir] = &listing{at: gen, list: list}
		}
	}
	s.lmu.Unlock()
	closeAll(drop)
}

// List returns the threads whose rollout records dir as their cwd, newest
// first (by the rollout's modification time).
//
// While the watches of the sessions tree say nothing in it changed since
// the last List of dir, that List's result is returned without reading
// anything. Otherwise the tree is read: a rollout unchanged since the last
// call is not opened; the workspace of one not seen before is read from
// its first line (the session_meta) and remembered by the file's
// identity, so that only dir's rollouts are indexed (a big rollout of
// another workspace is never scanned for dir's history); one of dir that
// grew is read from where the last call stopped.
//
// The result is shared with later calls, not copied: callers must not
// modify its elements; appending to it copies it (its capacity is its
// length).
func (s *Store) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	gen, ver, watched := s.generation(ctx)
	if watched {
		s.lmu.Lock()
		if l := s.tr.lists[dir]; l != nil && l.at == gen && s.tr.ver == ver {
			list := l.list
			s.lmu.Unlock()
			return list, nil
		}
		s.lmu.Unlock()
	}
	list, dirs, err := s.read(ctx, dir)
	if err != nil {
		return nil, err
	}
	list = slices.Clip(list)
	s.track(dirs, gen, ver, watched, dir, list)
	return list, nil
}

// read lists dir's threads from the disk (see List), and returns the
// directories of the tree it read.
func (s *Store) read(ctx context.Context, dir string) ([]runtimes.Summary, []string, error) {
	want := canonical(dir)
	// Whether a recorded cwd is dir, by cwd: the rollouts of one folder
	// resolve its symlinks once.
	mine := map[string]bool{}
	in := func(cwd string) bool {
		v, ok := mine[cwd]
		if !ok {
			v = inDir(cwd, dir, func() string { return want })
			mine[cwd] = v
		}
		return v
	}
	out := []summary{}
	seen := map[string]bool{}
	dirs, err := s.walk(ctx, func(r rolloutFile) error {
		fi, id, err := statAt(r.dir, r.name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed since the directory was read
		}
		if err != nil {
			return err
		}
		seen[r.path] = true
		cwd, ok := s.knownCwd(r.path, fi, id)
		if !ok && fi.Size() > s.headMin {
			cwd, ok = s.readHead(r.path)
		}
		if ok && !in(cwd) {
			return nil // another workspace's: not indexed
		}
		sum, err := s.summarize(ctx, r, fi)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if sum.x.cwd != "" && id.ok {
			// The index is what the file says now (a rewrite in place
			// shows here).
			s.hmu.Lock()
			s.heads[r.path] = head{id, fi.Size(), sum.x.cwd}
			s.hmu.Unlock()
		}
		if in(sum.x.cwd) {
			out = append(out, sum)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	s.prune(seen)
	slices.SortFunc(out, func(a, b summary) int {
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

// knownCwd is the workspace the rollout at p records, if remembered of
// the file fi (with identity id) is.
func (s *Store) knownCwd(p string, fi os.FileInfo, id fileID) (string, bool) {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	h, ok := s.heads[p]
	if !ok || !id.ok || h.id != id || fi.Size() < h.size {
		return "", false
	}
	h.size = fi.Size()
	s.heads[p] = h
	return h.cwd, true
}

// readHead reads the workspace the rollout at p records from its first
// line, and remembers it; ok is false when only its index can tell (no
// complete session_meta naming a cwd first).
func (s *Store) readHead(p string) (string, bool) {
	f, err := jsonl.OpenRegular(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, ok := firstLine(f)
	s.headBytes.Add(int64(len(line)))
	if !ok {
		return "", false
	}
	var x index
	x.add(line) // as the index would take it
	if x.cwd == "" {
		return "", false
	}
	// The identity of what was read, not of what was stat'ed before.
	if ofi, err := f.Stat(); err == nil {
		if oid := identity(ofi); oid.ok {
			s.hmu.Lock()
			s.heads[p] = head{oid, ofi.Size(), x.cwd}
			s.hmu.Unlock()
		}
	}
	return x.cwd, true
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
		if err == io.EOF || (err != nil) || n == 0 {
			return buf, false
		}
	}
	return buf, false
}
