package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// Input from clients is checked here, before git sees it: a path must stay
// inside the repository (after symlinks) and out of .git; a branch or ref
// must be a name git accepts (git check-ref-format) that cannot be read as
// an option.

// cleanPaths checks paths given relative to the repository's root and
// returns them cleaned. "." is the whole tree. The file itself may be
// missing (a deleted file is staged or discarded by name) or a symlink (git
// acts on the link, not its target), but the folder holding it must resolve
// inside the root, so a path through a symlink to elsewhere is refused.
func (r *Repo) cleanPaths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, rpc.InvalidParams("paths", "required")
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		c, err := r.cleanPath("paths", p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// cleanPath checks one path (see cleanPaths); field names it in errors.
func (r *Repo) cleanPath(field, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", rpc.InvalidParams(field, "empty path")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		return "", rpc.InvalidPath(p, "must be relative to the repository's root")
	}
	if strings.ContainsRune(p, 0) {
		return "", rpc.InvalidPath(p, "contains a NUL byte")
	}
	c := filepath.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", rpc.PathOutside(p)
	}
	if c == ".git" || strings.HasPrefix(c, ".git/") {
		return "", rpc.InvalidPath(p, "inside .git")
	}
	if c == "." {
		return c, nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(r.Root, filepath.Dir(c)))
	if err != nil {
		if os.IsNotExist(err) {
			// A deleted folder's files are still named in the index; its
			// parents are inside the root (checked above) and nothing on
			// disk can lead out of it.
			if r.nearestInside(filepath.Dir(c)) {
				return c, nil
			}
		}
		return "", rpc.InvalidPath(p, "cannot be resolved")
	}
	if !inside(r.Root, dir) {
		return "", rpc.PathOutside(p)
	}
	return c, nil
}

// nearestInside reports whether the deepest existing folder of rel resolves
// inside the root.
func (r *Repo) nearestInside(rel string) bool {
	for d := rel; ; d = filepath.Dir(d) {
		canon, err := filepath.EvalSymlinks(filepath.Join(r.Root, d))
		if err == nil {
			return inside(r.Root, canon)
		}
		if d == "." || d == "/" {
			return false
		}
	}
}

// inside reports whether canonical path p is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// checkBranch refuses a branch name git would not create, or that reads as
// an option. The check is git's own (check-ref-format --branch).
func (r *Repo) checkBranch(ctx context.Context, field, name string) error {
	if name == "" {
		return rpc.InvalidParams(field, "required")
	}
	if strings.HasPrefix(name, "-") {
		return rpc.InvalidParams(field, "must not start with '-'")
	}
	if strings.Contains(name, "@{") {
		// check-ref-format --branch expands @{-1} to the previous branch:
		// a client names branches, not positions in the reflog.
		return rpc.InvalidParams(field, "not a valid branch name: "+name)
	}
	res, err := r.run(ctx, "check-ref-format", "--branch", name)
	if err != nil {
		return err
	}
	if res.exit != 0 {
		return rpc.InvalidParams(field, "not a valid branch name: "+name)
	}
	return nil
}

// checkRemoteName refuses a remote name that is not a valid ref component.
func (r *Repo) checkRemoteName(ctx context.Context, field, name string) error {
	if name == "" {
		return rpc.InvalidParams(field, "required")
	}
	if strings.HasPrefix(name, "-") || strings.Contains(name, "/") {
		return rpc.InvalidParams(field, "not a valid remote name: "+name)
	}
	res, err := r.run(ctx, "check-ref-format", "refs/remotes/"+name+"/x")
	if err != nil {
		return err
	}
	if res.exit != 0 {
		return rpc.InvalidParams(field, "not a valid remote name: "+name)
	}
	return nil
}
