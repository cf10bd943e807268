package files

import (
	"path/filepath"
	"strings"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

// Target is a client's path made safe: its canonical absolute form inside
// the workspace, and that form relative to the workspace ("" for the root,
// "/" between names).
type Target struct {
	Abs string
	Rel string
}

// Resolve checks a client's workspace-relative path p and resolves it in
// w. An absolute path is refused (the protocol's paths are relative, and a
// client that sends an absolute one has mistaken the workspace); "" and "."
// are the root. The result is canonical, so a symlink is followed to where
// it leads, and refused if that is outside w or inside its .git.
func Resolve(w workspaces.Workspace, p string) (Target, error) {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		return Target{}, rpc.InvalidPath(p, "must be relative to the workspace")
	}
	if strings.ContainsRune(p, 0) {
		return Target{}, rpc.InvalidPath(p, "contains a NUL byte")
	}
	abs, err := w.Resolve(filepath.FromSlash(p))
	if err != nil {
		return Target{}, err
	}
	rel, err := filepath.Rel(w.Path, abs)
	if err != nil {
		return Target{}, rpc.PathOutside(p)
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		rel = ""
	}
	if InGitDir(rel) {
		return Target{}, rpc.InvalidPath(p, "git's internals (.git) are not served")
	}
	return Target{Abs: abs, Rel: rel}, nil
}

// InGitDir reports whether the workspace-relative path rel is a .git
// directory (or file, in a worktree or submodule) or lies inside one.
func InGitDir(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}

// join is a workspace-relative path of name in directory dir.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// Extension is a name's extension without the dot, in lower case; "" for
// none (and for a dot file such as .env, whose name is all extension).
func Extension(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return ""
	}
	return strings.ToLower(name[i+1:])
}
