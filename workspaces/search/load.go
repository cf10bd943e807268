package search

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// maxPaths bounds an index (a walk of a home directory by mistake, a
// generated tree): the paths past it are not searched.
const maxPaths = 1_000_000

// listing is what a build found: the paths, and in a git work tree which
// of them git tracks (the others are untracked but not ignored).
type listing struct {
	git     bool
	paths   []string
	tracked []bool
}

// load lists root's searchable files: git's view of them in a work tree,
// a walk elsewhere (or where git is missing).
func load(ctx context.Context, root string) (listing, error) {
	l, err := gitFiles(ctx, root)
	if err == nil {
		return l, nil
	}
	if ctx.Err() != nil {
		return listing{}, ctx.Err()
	}
	if !errors.Is(err, errNotGit) {
		return listing{}, err
	}
	return walk(ctx, root)
}

var errNotGit = errors.New("not a git work tree")

// gitFiles runs the user's git (their config; never through a shell) for
// the tracked files and the untracked ones it does not ignore, tagged:
// "H" and the like for tracked, "?" for untracked.
func gitFiles(ctx context.Context, root string) (listing, error) {
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-z", "-t", "--cached", "--others",
		"--exclude-standard", "--deduplicate")
	cmd.Dir = root
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return listing{}, errNotGit
	}
	if err != nil {
		if strings.Contains(stderr.String(), "not a git repository") {
			return listing{}, errNotGit
		}
		return listing{}, errors.New("git ls-files: " + strings.TrimSpace(stderr.String()) + ": " + err.Error())
	}
	l := listing{git: true}
	for len(out) > 0 && len(l.paths) < maxPaths {
		rec, rest, _ := bytes.Cut(out, []byte{0})
		out = rest
		tag, p, ok := bytes.Cut(rec, []byte{' '})
		if !ok || len(p) == 0 {
			continue
		}
		l.paths = append(l.paths, string(p))
		l.tracked = append(l.tracked, string(tag) != "?")
	}
	return l, nil
}

// gitEnv is cdevd's environment for git, without the variables that would
// point it at another repository, and with no terminal prompt and no
// optional lock (a read must not hold up the user's own git).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
}

// walk lists every file under root but .git directories, not following
// symlinks.
func walk(ctx context.Context, root string) (listing, error) {
	var l listing
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory: left out, not fatal
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" {
			return nil // a worktree's or submodule's pointer file
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		l.paths = append(l.paths, filepath.ToSlash(rel))
		if len(l.paths) == maxPaths {
			return filepath.SkipAll
		}
		return nil
	})
	return l, err
}
