package turns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ConflictError is a revert refused because files it would restore were
// changed since the turn (by the user or a later turn).
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return "changed since the turn: " + strings.Join(e.Paths, ", ") + " (force to overwrite)"
}

// RevertResult says what a revert did, or would do.
type RevertResult struct {
	// Files are the paths restored (or, for a dry run, to be restored).
	Files []string `json:"files"`
	// Conflicts are the paths changed since the turn; restored only with
	// force.
	Conflicts []string `json:"conflicts"`
	// Before and After are snapshots around the revert, so that it can be
	// recorded as a change, and reverted in turn. Empty for a dry run.
	Before, After string `json:"-"`
}

// entry is one path in a tree.
type entry struct{ mode, id string }

// Revert restores the files that changed between before and after (a
// turn's snapshots) to their state in before. A file whose content now is
// not what the turn left is a conflict: the revert is refused with a
// ConflictError unless force. A dry run says what would happen and
// changes nothing.
func (r *Repo) Revert(ctx context.Context, before, after string, force, dryRun bool) (RevertResult, error) {
	files, err := r.changed(ctx, before, after)
	if err != nil {
		return RevertResult{}, err
	}
	res := RevertResult{Files: []string{}, Conflicts: []string{}}
	if len(files) == 0 {
		return res, nil
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	now, err := r.Snapshot(ctx)
	if err != nil {
		return res, err
	}
	afterEntries, err := r.entries(ctx, after, paths)
	if err != nil {
		return res, err
	}
	nowEntries, err := r.entries(ctx, now, paths)
	if err != nil {
		return res, err
	}
	for _, p := range paths {
		if afterEntries[p] != nowEntries[p] {
			res.Conflicts = append(res.Conflicts, p)
		}
	}
	res.Files = paths
	if dryRun {
		return res, nil
	}
	if len(res.Conflicts) > 0 && !force {
		return res, &ConflictError{Paths: res.Conflicts}
	}
	beforeEntries, err := r.entries(ctx, before, paths)
	if err != nil {
		return res, err
	}
	for i, p := range paths {
		if err := r.restore(ctx, p, beforeEntries[p]); err != nil {
			// All or nothing: a half-reverted turn would leave the agent's
			// work and the user's mixed, in a state no snapshot describes.
			// The files already restored go back to what they were a
			// moment ago, which the snapshot "now" holds.
			return res, r.rollBack(ctx, paths[:i], nowEntries, &PartialError{Path: p, Err: err})
		}
	}
	res.Before = now
	res.After, err = r.Snapshot(ctx)
	return res, err
}

// PartialError is a revert that failed on one file. The files restored
// before it were put back as they were before the revert, but for
// NotPutBack.
type PartialError struct {
	Path       string
	Err        error
	PutBack    int      // files restored, then put back
	NotPutBack []string // files restored that could not be put back
}

func (e *PartialError) Error() string {
	msg := fmt.Sprintf("restoring %s: %v; ", e.Path, e.Err)
	if len(e.NotPutBack) > 0 {
		return msg + "these files were restored and could not be put back as they were: " + strings.Join(e.NotPutBack, ", ")
	}
	return msg + fmt.Sprintf("nothing was changed (%d file(s) restored before it were put back)", e.PutBack)
}

func (e *PartialError) Unwrap() error { return e.Err }

// rollBack puts the files a failed revert had restored back to their
// entries in now, the last first, and completes perr with the outcome.
// (A directory a restore removed to make room for a file is not made
// again: it was empty.)
func (r *Repo) rollBack(ctx context.Context, restored []string, now map[string]entry, perr *PartialError) error {
	for i := len(restored) - 1; i >= 0; i-- {
		p := restored[i]
		if err := r.restore(ctx, p, now[p]); err != nil {
			perr.NotPutBack = append(perr.NotPutBack, p)
			continue
		}
		perr.PutBack++
	}
	return perr
}

// entries reads the given paths' modes and object ids in a tree; a path
// absent from the tree is absent from the map.
func (r *Repo) entries(ctx context.Context, tree string, paths []string) (map[string]entry, error) {
	args := append([]string{"ls-tree", "-r", "-z", "--full-tree", tree, "--"}, paths...)
	out, err := r.s.git(ctx, r.Root, r.readEnv(), args...)
	if err != nil {
		return nil, err
	}
	m := map[string]entry{}
	// "<mode> <type> <id>\t<path>\0"
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) == 3 {
			m[path] = entry{mode: f[0], id: f[2]}
		}
	}
	return m, nil
}

// restore puts one path back to e (or removes it when e is empty).
func (r *Repo) restore(ctx context.Context, rel string, e entry) error {
	full := filepath.Join(r.Root, filepath.FromSlash(rel))
	dir, err := r.insideDir(filepath.Dir(full))
	if err != nil {
		return err
	}
	full = filepath.Join(dir, filepath.Base(full))
	if e == (entry{}) {
		err := os.Remove(full)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if e.mode == "160000" {
		// A submodule's commit is the submodule's own repository's
		// business (a checkout there); its folder is left as it is.
		return nil
	}
	content, err := r.s.git(ctx, r.Root, r.readEnv(), "cat-file", "blob", e.id)
	if err != nil {
		return err
	}
	// A temporary name in the same directory and a rename: a reader (an
	// editor, the agent's next turn) sees the old file or the new one.
	tmp := filepath.Join(dir, ".cdevd-revert-"+e.id[:12])
	os.Remove(tmp)
	switch e.mode {
	case "120000":
		err = os.Symlink(string(content), tmp)
	default:
		perm := os.FileMode(0o644)
		if e.mode == "100755" {
			perm = 0o755
		}
		err = os.WriteFile(tmp, content, perm)
		if err == nil {
			err = os.Chmod(tmp, perm) // the umask must not change what git recorded
		}
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	// A directory in the way (the turn replaced a file with one) goes only
	// if it is empty; anything else is left for the user.
	if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
		if err := os.Remove(full); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// insideDir makes dir (creating it if needed) and checks that, symlinks
// resolved, it is inside the repository: a symlinked directory must not
// lead a revert to write elsewhere.
func (r *Repo) insideDir(dir string) (string, error) {
	// The nearest ancestor that exists is checked before anything is
	// made, so that no directory is created through a symlink.
	existing := dir
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", err
	}
	if real != r.Root && !strings.HasPrefix(real, r.Root+string(filepath.Separator)) {
		return "", fmt.Errorf("%s leads outside the repository", dir)
	}
	rest, err := filepath.Rel(existing, dir)
	if err != nil {
		return "", err
	}
	made := filepath.Join(real, rest)
	if err := os.MkdirAll(made, 0o755); err != nil {
		return "", err
	}
	return made, nil
}
