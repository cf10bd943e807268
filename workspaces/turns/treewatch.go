package turns

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/cdevd/cdevd/internal/fswatch"
)

// A tree watch tells whether anything in a repository's working tree
// changed since it was last looked at, so that the last snapshot can stand
// for a new one without `git add` reading the tree again.
//
// It counts the changes to every folder of the tree that a snapshot can
// see (not .git, not the folders git ignores as a whole) with one
// fswatch.Gen each, on the daemon's one inotify instance. One Now of the
// root is a barrier for all of them (see fswatch.Gen.Now): every change
// made before it is counted when it returns, so a change that lands
// between a snapshot and the next look is never taken for "nothing
// changed". Anything the watch cannot vouch for counts as a change: a
// folder removed or moved, an overflowed or failed instance (fswatch bumps
// every folder then), a folder over the limit, ignore rules that moved.
//
// What inotify does not report is not seen (see fswatch.Gen): writes
// through a shared memory mapping or a hard link from outside the tree, a
// network file system changed by another host, and a change to the user's
// global excludes file (core.excludesFile).

// maxTreeDirs bounds the folders one repository's watch takes (the kernel's
// watches are shared with every program of the user); a larger tree is not
// watched and every snapshot reads it.
const maxTreeDirs = 4096

// maxSettleRounds bounds how often one look follows a tree that keeps
// changing (an agent or a build still writing) before giving up on
// vouching for it until the next look.
const maxSettleRounds = 4

// errUnwatchable is a tree the watch cannot vouch for whatever happens in
// it: too many folders, or a repository inside (a submodule or a nested
// repository, whose commits move the snapshot from outside the tree).
var errUnwatchable = errors.New("the tree cannot be watched")

// treeWatch is one repository's tree watch. Not safe for concurrent use:
// its repository's lock guards it.
type treeWatch struct {
	fw      *fswatch.Watcher
	root    string
	exclude string // the repository's info/exclude, whose rules move the snapshot
	// ignoredDirs lists the folders git ignores as a whole under the given
	// ones (all of the tree when none), relative to the root.
	ignoredDirs func(ctx context.Context, under []string) (map[string]bool, error)

	gens    map[string]*fswatch.Gen // by folder, absolute; nil until built
	seen    map[string]uint64       // each folder's generation when it was last read
	rules   map[string]fileKey      // the ignore files' identities when last read
	ignored map[string]bool         // folders found ignored (not watched) under these rules
}

// fileKey tells whether a small file changed: its identity, size and time.
type fileKey struct {
	ino, size uint64
	mtime     int64
	exists    bool
}

func keyOf(path string) fileKey {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileKey{}
	}
	k := fileKey{size: uint64(fi.Size()), mtime: fi.ModTime().UnixNano(), exists: true}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.ino = st.Ino
	}
	return k
}

// look is what a look at the tree found.
type look struct {
	// unchanged: nothing in the tree changed since the last look.
	unchanged bool
	// covered: every folder a snapshot can see is watched now and its
	// count read after a barrier, so that a snapshot started after the
	// look can be vouched for at the next one.
	covered bool
	// changed lists the folders in which something changed since the last
	// look (their subfolders made since included, which may not be watched
	// yet), when the watch followed the whole tree since then: nothing
	// outside them changed. Nil when unknown (the watch was built again).
	changed []string
}

// look brings the watch up to date with the tree. An error means the tree
// cannot be watched (the watch is closed).
//
// A look that finds the watch must be built (again) builds it only when
// build is set: building walks the tree, which a turn's start, holding the
// prompt, leaves to the turn's end.
func (t *treeWatch) look(ctx context.Context, build bool) (look, error) {
	if t.gens != nil && t.rules[t.exclude] == keyOf(t.exclude) {
		if cur, lost := t.barrier(ctx); !lost {
			changed := t.moved(cur)
			if len(changed) == 0 {
				return look{unchanged: true, covered: true, changed: []string{}}, nil
			}
			touched := map[string]bool{}
			covered, err := t.settle(ctx, cur, changed, touched)
			if !errors.Is(err, errLost) {
				if err != nil {
					t.close()
					return look{}, err
				}
				res := look{covered: covered, changed: make([]string, 0, len(touched))}
				for d := range touched {
					res.changed = append(res.changed, d)
				}
				return res, nil
			}
		}
	}
	// Not built, or it lost track (a folder moved or removed, the instance
	// failed, the ignore rules changed): built again from the tree.
	t.close()
	if !build {
		return look{}, nil
	}
	covered, err := t.build(ctx)
	if errors.Is(err, errLost) {
		// The tree moved under the walk: nothing to vouch for this time,
		// built again at the next look.
		covered, err = false, nil
		t.close()
	}
	if err != nil {
		t.close()
	}
	return look{covered: covered}, err
}

// live reports whether the watch follows the tree (it was not closed).
func (t *treeWatch) live() bool { return t.gens != nil }

// build watches the tree from scratch.
func (t *treeWatch) build(ctx context.Context) (bool, error) {
	t.gens, t.seen, t.rules, t.ignored = map[string]*fswatch.Gen{}, map[string]uint64{}, map[string]fileKey{}, map[string]bool{}
	// The rules first: a change to them after this is seen at the next look.
	t.rules[t.exclude] = keyOf(t.exclude)
	ignored, err := t.ignoredDirs(ctx, nil)
	if err != nil {
		return false, err
	}
	if err := t.add(ctx, t.root, ignored); err != nil {
		return false, err
	}
	cur, lost := t.barrier(ctx)
	if lost {
		return false, errLost
	}
	return t.settle(ctx, cur, t.moved(cur), map[string]bool{})
}

// settle reads again the folders whose count moved (new folders in them
// are watched), until a barrier finds none moved since it read them. Every
// folder found moved is added to touched.
func (t *treeWatch) settle(ctx context.Context, cur map[string]uint64, changed []string, touched map[string]bool) (bool, error) {
	for round := 0; ; round++ {
		for _, d := range changed {
			touched[d] = true
		}
		if len(changed) == 0 {
			return true, nil
		}
		if round == maxSettleRounds {
			return false, nil // still changing: vouched for at a later look
		}
		var fresh []string
		for _, d := range changed {
			// Recorded before the folder is read: a change after the
			// barrier that cur came from moves it past this again.
			t.seen[d] = cur[d]
			news, err := t.scan(d)
			if err != nil {
				return false, err
			}
			fresh = append(fresh, news...)
		}
		if len(fresh) > 0 {
			ignored, err := t.ignoredDirs(ctx, fresh)
			if err != nil {
				return false, err
			}
			if err := t.addAll(ctx, fresh, ignored); err != nil {
				return false, err
			}
		}
		var lost bool
		if cur, lost = t.barrier(ctx); lost {
			return false, errLost
		}
		changed = t.moved(cur)
	}
}

var errLost = errors.New("the tree watch lost track")

// scan reads one watched folder and returns its subfolders not watched yet.
// A changed ignore file there is a change of rules (errLost: built again).
func (t *treeWatch) scan(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrPermission) {
		// git cannot read it either; walking the tree again at every
		// snapshot would not change that.
		return nil, errUnwatchable
	}
	if err != nil {
		return nil, errLost // gone, or replaced: built again
	}
	if ig := filepath.Join(dir, ".gitignore"); t.rules[ig] != keyOf(ig) {
		return nil, errLost
	}
	var news []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Name() == ".git" && dir != t.root, e.Name() == ".gitmodules" && dir == t.root:
			return nil, errUnwatchable
		case !e.IsDir() || e.Name() == ".git":
		case t.gens[p] == nil && !t.ignored[p]:
			news = append(news, p)
		}
	}
	return news, nil
}

// add watches dir and every folder under it that is not ignored: the
// folder's count starts before it is read, so a file made in it meanwhile
// is either read or counted.
func (t *treeWatch) add(ctx context.Context, dir string, ignored map[string]bool) error {
	if len(t.gens) >= maxTreeDirs {
		return errUnwatchable
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	g, err := t.fw.WatchGen(dir)
	if err != nil {
		return err
	}
	t.gens[dir] = g
	n, err := g.Seen()
	if err != nil {
		return errLost
	}
	t.seen[dir] = n
	ig := filepath.Join(dir, ".gitignore")
	t.rules[ig] = keyOf(ig)
	news, err := t.scan(dir)
	if err != nil {
		return err
	}
	return t.addAll(ctx, news, ignored)
}

// addAll adds each folder that is not ignored, and remembers those that
// are (not asked about again while the rules hold).
func (t *treeWatch) addAll(ctx context.Context, dirs []string, ignored map[string]bool) error {
	for _, d := range dirs {
		if ignored[d] {
			t.ignored[d] = true
			continue
		}
		if err := t.add(ctx, d, ignored); err != nil {
			return err
		}
	}
	return nil
}

// barrier waits until every change made before it is counted, then reads
// every folder's count; lost when the root or any folder no longer
// follows its path.
func (t *treeWatch) barrier(ctx context.Context) (map[string]uint64, bool) {
	root := t.gens[t.root]
	if root == nil {
		return nil, true
	}
	if _, err := root.Now(ctx); err != nil {
		return nil, true
	}
	cur := make(map[string]uint64, len(t.gens))
	for d, g := range t.gens {
		n, err := g.Seen()
		if err != nil {
			return nil, true
		}
		cur[d] = n
	}
	return cur, false
}

// moved lists the folders whose count is not the one last read.
func (t *treeWatch) moved(cur map[string]uint64) []string {
	var out []string
	for d, n := range cur {
		if t.seen[d] != n {
			out = append(out, d)
		}
	}
	return out
}

// close ends every folder's count.
func (t *treeWatch) close() {
	for _, g := range t.gens {
		g.Close()
	}
	t.gens, t.seen, t.rules, t.ignored = nil, nil, nil, nil
}

// parseIgnoredDirs reads `git ls-files -z --directory` output: the folders
// (ending in "/") as absolute paths.
func parseIgnoredDirs(root string, out []byte) map[string]bool {
	set := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if s, ok := bytes.CutSuffix(p, []byte("/")); ok && len(s) > 0 {
			set[filepath.Join(root, string(s))] = true
		}
	}
	return set
}
