package workspaces

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// The path boundary: every feature that takes a path from a client inside a
// workspace (a session's cwd today; files, git and search next) resolves it
// here, so that one rule decides what lies inside.

// expandHome turns "~", alone or before a "/", into the user's home
// directory. "~user" is not expanded: it stays a relative path, refused
// as one.
func expandHome(path string) (string, error) {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, path[1:]), nil
}

// Canonical returns the absolute, symlink-free form of path.
func Canonical(path string) (string, error) {
	if path == "" {
		return "", errors.New("path is empty")
	}
	path, err := expandHome(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Contains reports whether path (canonicalized) lies inside workspace w.
func (w Workspace) Contains(path string) bool {
	canon, err := Canonical(path)
	return err == nil && w.holds(canon)
}

// Resolve is the boundary itself: p, absolute or relative to the
// workspace, made canonical (so a symlink cannot lead out) and required to
// lie inside w. Its errors are the wire's: -32021 for a path that does not
// exist, -32022 for one outside the workspace, each naming the path as
// resolved against the workspace.
func (w Workspace) Resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Path, p)
	}
	canon, err := Canonical(p)
	if err != nil {
		return "", rpc.InvalidPath(p, "does not exist")
	}
	if !w.holds(canon) {
		return "", rpc.PathOutside(p)
	}
	return canon, nil
}

// holds reports whether the canonical path canon is w's folder or below it.
func (w Workspace) holds(canon string) bool {
	rel, err := filepath.Rel(w.Path, canon)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
