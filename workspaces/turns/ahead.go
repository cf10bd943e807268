package turns

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// Snapshots ahead of the turn. A turn's starting snapshot holds its prompt
// back (it must show the tree before the agent writes), so it is made
// cheap in two ways:
//
//   - A private index per repository, kept between snapshots under
//     $CDEVD_HOME/turns/index/ (0600): `git add -A` with an index whose
//     stat data is current hashes only the files that changed since the
//     last snapshot, where a copy of the user's index made it hash every
//     changed and untracked file each time.
//   - With Config.Watcher, a tree watch (treewatch.go) per repository: the
//     last snapshot stands for the next one when the watch shows nothing
//     changed since, without running git at all. The watch is looked at
//     before each snapshot starts, so a change made while git reads the
//     tree, or any time after, is counted and refuses the reuse. When
//     something changed, the watch says in which folders: `git add` is
//     given only those while the index is current for the rest.
//
// Snapshots of one repository run one at a time (they share the index and
// the watch), whichever session takes them.

// repoState is what the snapshots of one repository share.
type repoState struct {
	mu    sync.Mutex // one snapshot at a time
	watch *treeWatch // nil while not watched
	// unwatchable is set when the tree cannot be watched (too large, a
	// repository inside): not tried again until the state is dropped.
	unwatchable bool
	// last is the tree of the last snapshot taken while the watch covered
	// the tree; "" when there is none to vouch for.
	last string
	// indexCurrent: the private index held every file of the tree as it
	// was at the last look's barrier, but for the folders the watch finds
	// changed since, so that `git add` need read only those.
	indexCurrent bool
	idle         *time.Timer // drops the watch once unused for Config.WatchIdle
}

// Counts says how the snapshots were made, for tests and the bench.
type Counts struct {
	Taken    int64 // `git add -A` and `git write-tree` ran
	Narrowed int64 // of those, `git add` read only the folders that changed
	Reused   int64 // the last snapshot stood for this one
}

type counters struct{ taken, narrowed, reused atomic.Int64 }

// Counts returns how many snapshots were taken and how many reused.
func (s *Snapshotter) Counts() Counts {
	return Counts{Taken: s.counts.taken.Load(), Narrowed: s.counts.narrowed.Load(), Reused: s.counts.reused.Load()}
}

// state returns root's shared state.
func (s *Snapshotter) state(root string) *repoState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.repos[root]
	if st == nil {
		st = &repoState{}
		s.repos[root] = st
	}
	return st
}

// Snapshot records the working tree as it is now and returns its tree id.
// The last snapshot of the repository is returned again when the tree
// watch shows nothing changed since it began; otherwise git reads the
// tree, through the private index. When the repository is not watched
// yet, this snapshot starts the watch (a walk of the tree, before git
// runs): it is for the snapshots nothing waits for, the end of a turn.
func (r *Repo) Snapshot(ctx context.Context) (string, error) {
	return r.snapshot(ctx, true)
}

// SnapshotQuick is Snapshot for a turn's start, which holds the prompt
// back: it reuses the last snapshot as Snapshot does, but when the
// repository is not watched yet it takes the snapshot without starting
// the watch; the end of the turn starts it.
func (r *Repo) SnapshotQuick(ctx context.Context) (string, error) {
	return r.snapshot(ctx, false)
}

func (r *Repo) snapshot(ctx context.Context, arm bool) (string, error) {
	st, s := r.state, r.s
	st.mu.Lock()
	defer st.mu.Unlock()
	s.touch(st)
	last := st.last
	st.last = ""
	current := st.indexCurrent
	st.indexCurrent = false
	covered, w := false, s.watchLocked(st, r, arm)
	var only []string // the folders git reads; nil: the whole tree
	if w != nil {
		res, err := w.look(ctx, arm)
		var refused *fswatch.Error
		switch {
		case err != nil && (errors.Is(err, errUnwatchable) || errors.As(err, &refused)):
			// Never tried again for this repository while its state is
			// kept: a tree over the limit would be walked for nothing at
			// every snapshot.
			st.watch, st.unwatchable, w = nil, true, nil
		case err != nil:
			st.watch, w = nil, nil // built again by the next snapshot that may
		case res.unchanged && last != "":
			st.last, st.indexCurrent = last, current
			s.counts.reused.Add(1)
			return last, nil
		default:
			covered = res.covered
			// Only where the tree changed, when the index was current
			// everywhere else: `git add` then neither stats nor walks the
			// folders the watch vouches for.
			if covered && current && res.changed != nil && len(res.changed) <= maxOnlyPaths && !slices.Contains(res.changed, r.Root) {
				only = res.changed
			}
		}
	}
	tree, err := r.take(ctx, only)
	if err != nil {
		return "", err
	}
	s.counts.taken.Add(1)
	if only != nil {
		s.counts.narrowed.Add(1)
	}
	if s.afterTake != nil {
		s.afterTake()
	}
	if covered {
		st.last = tree
	}
	// git read the tree after the look's barrier: the index holds every
	// file as it was then, but for what the next look finds changed.
	st.indexCurrent = w != nil && w.live()
	return tree, nil
}

// maxOnlyPaths bounds the folders named to `git add`; past it, git reads
// the whole tree.
const maxOnlyPaths = 64

// watchLocked returns the repository's tree watch, made when arm is set
// and there is none; nil when snapshots are not watched.
func (s *Snapshotter) watchLocked(st *repoState, r *Repo, arm bool) *treeWatch {
	if st.watch != nil || !arm || st.unwatchable || s.cfg.Watcher == nil || s.closed.Load() {
		return st.watch
	}
	st.watch = &treeWatch{fw: s.cfg.Watcher, root: r.Root, exclude: r.exclude, ignoredDirs: r.ignoredDirs}
	return st.watch
}

// touch keeps the watch for another Config.WatchIdle. An idle watch is
// dropped: its kernel watches are the user's to share, and a repository
// no session used for that long has no turn whose start it would save.
func (s *Snapshotter) touch(st *repoState) {
	if s.cfg.Watcher == nil || s.closed.Load() {
		return
	}
	if st.idle != nil {
		st.idle.Reset(s.cfg.WatchIdle)
		return
	}
	st.idle = time.AfterFunc(s.cfg.WatchIdle, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.drop()
	})
}

// drop forgets the watch and what it vouched for.
func (st *repoState) drop() {
	if st.watch != nil {
		st.watch.close()
	}
	st.watch, st.last, st.unwatchable = nil, "", false
}

// Close drops every repository's watch (snapshots still work, unwatched).
func (s *Snapshotter) Close() error {
	s.closed.Store(true)
	s.mu.Lock()
	states := make([]*repoState, 0, len(s.repos))
	for _, st := range s.repos {
		states = append(states, st)
	}
	s.mu.Unlock()
	for _, st := range states {
		st.mu.Lock()
		if st.idle != nil {
			st.idle.Stop()
		}
		st.drop()
		st.mu.Unlock()
	}
	return nil
}

// take makes the snapshot with git, through the private index. An index
// git cannot use (damaged, or naming objects a prune removed) is made
// again from the user's and the snapshot taken once more.
//
// only, when not nil, names the folders to read (relative: `git add` with
// them as pathspecs, each with what is under it); the index must already
// hold every other file as it is.
func (r *Repo) take(ctx context.Context, only []string) (string, error) {
	tree, err := r.addAndWrite(ctx, only)
	if err == nil || ctx.Err() != nil {
		return tree, err
	}
	if rmErr := os.Remove(r.index); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		return "", err
	}
	return r.addAndWrite(ctx, nil)
}

func (r *Repo) addAndWrite(ctx context.Context, only []string) (string, error) {
	made, err := r.prepareIndex(ctx)
	if err != nil {
		return "", err
	}
	if made {
		only = nil // a new index is current nowhere: git reads the whole tree
	}
	env := r.env(r.index)
	args := []string{"add", "-A", "--"}
	for _, d := range only {
		rel, err := filepath.Rel(r.Root, d)
		if err != nil {
			return "", err
		}
		args = append(args, rel)
	}
	if only == nil {
		args = append(args, ".")
	}
	if len(args) > 3 {
		if _, err := r.s.git(ctx, r.Root, env, args...); err != nil {
			return "", err
		}
	}
	out, err := r.s.git(ctx, r.Root, env, "write-tree")
	if err != nil {
		return "", err
	}
	// git makes the index with the umask's mode; it holds the names of
	// the user's files.
	if err := os.Chmod(r.index, 0o600); err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// prepareIndex makes the private index when there is none: a copy of the
// user's (whose stat data lets `git add` skip the files that did not
// change, which is most of them), or HEAD's tree, or nothing.
// It reports whether it made one.
func (r *Repo) prepareIndex(ctx context.Context) (bool, error) {
	// A lock left by a git the daemon's end killed: no other git uses this
	// index while the repository's lock is held.
	if err := os.Remove(r.index + ".lock"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if _, err := os.Stat(r.index); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(r.index), 0o700); err != nil {
		return false, err
	}
	tmp := r.index + ".new"
	_ = os.Remove(tmp)
	seeded, err := copyFile(filepath.Join(r.gitDir, "index"), tmp)
	if err != nil {
		return false, err
	}
	if !seeded {
		// No index (a fresh repository, or one in which the user removed
		// it): start from HEAD if there is one, else from nothing.
		env := r.env(tmp)
		if _, err := r.s.git(ctx, r.Root, env, "rev-parse", "--verify", "-q", "HEAD^{tree}"); err == nil {
			if _, err := r.s.git(ctx, r.Root, env, "read-tree", "HEAD"); err != nil {
				return false, err
			}
		}
		if _, err := os.Stat(tmp); err != nil {
			return true, nil // nothing yet: `git add` makes the index
		}
	}
	return true, os.Rename(tmp, r.index)
}

// ignoredDirs lists the folders git ignores as a whole under the given
// ones (the whole tree when none), as the private index sees them: a
// folder holding a file the index has is not one of them.
func (r *Repo) ignoredDirs(ctx context.Context, under []string) (map[string]bool, error) {
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"}
	// Many new folders at once are asked about as the whole tree: their
	// names could exceed what one command line holds.
	if len(under) > 0 && len(under) <= 256 {
		args = append(args, "--")
		for _, d := range under {
			rel, err := filepath.Rel(r.Root, d)
			if err != nil {
				return nil, err
			}
			args = append(args, rel)
		}
	}
	if _, err := r.prepareIndex(ctx); err != nil {
		return nil, err
	}
	out, err := r.s.git(ctx, r.Root, r.env(r.index), args...)
	if err != nil {
		return nil, err
	}
	return parseIgnoredDirs(r.Root, out), nil
}
