// Package turns records what an agent's turn did to a workspace and takes
// it back: a snapshot of the working tree at a turn's start and end, the
// diff between the two, and a revert that restores the files the turn
// changed.
//
// A snapshot is a git tree made with the user's own git but nothing of the
// user's: a temporary index (a copy of theirs, so unchanged files are not
// hashed again) in a private directory, `git add -A` and `git write-tree`
// with that index, and the new objects written to a private object store
// under cdevd's home that borrows the repository's objects as an alternate.
// The user's index, refs, stash, working tree and object store are never
// written; .gitignore is respected because `git add -A` respects it.
//
// A workspace that is not inside a git repository has no snapshots
// (ErrNotRepo): its turns have no diffs and cannot be reverted.
package turns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrNotRepo is returned for a workspace that is not in a git repository.
var ErrNotRepo = errors.New("not a git repository: turns are not recorded")

// Config configures a Snapshotter.
type Config struct {
	// Bin is the git to run; default "git" on PATH.
	Bin string
	// Home is where the private object stores live ($CDEVD_HOME/turns).
	Home string
	// Env is added to the daemon's environment (tests set HOME).
	Env []string
	// Timeout bounds one git command; default 2 minutes (a first snapshot
	// of a large repository hashes every untracked file).
	Timeout time.Duration
	// MaxDiff caps the unified diff of one turn; default 256 KiB.
	MaxDiff int
}

// Snapshotter takes snapshots, diffs and reverts. Safe for concurrent use.
type Snapshotter struct{ cfg Config }

// New makes a Snapshotter.
func New(cfg Config) *Snapshotter {
	if cfg.Bin == "" {
		cfg.Bin = "git"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.MaxDiff <= 0 {
		cfg.MaxDiff = 256 << 10
	}
	return &Snapshotter{cfg: cfg}
}

// Repo is one workspace's repository as the snapshots see it.
type Repo struct {
	s       *Snapshotter
	Root    string // the repository's top level, canonical
	gitDir  string // the repository's git directory, absolute
	objects string // the repository's object store (borrowed, never written)
	private string // our object store for this repository
}

// Open finds the repository that holds dir and prepares its private object
// store.
func (s *Snapshotter) Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := s.git(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-path", "objects")
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			return nil, ErrNotRepo
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("unexpected git rev-parse output %q", out)
	}
	root, err := filepath.EvalSymlinks(lines[0])
	if err != nil {
		return nil, err
	}
	// One store per repository, named by its path: repositories do not
	// share objects, and a removed one leaves only its own store behind.
	private := filepath.Join(s.cfg.Home, "objects", storeName(root))
	if err := os.MkdirAll(filepath.Join(private, "info"), 0o700); err != nil {
		return nil, err
	}
	return &Repo{s: s, Root: root, gitDir: lines[1], objects: lines[2], private: private}, nil
}

// Snapshot records the working tree as it is now and returns its tree id.
func (r *Repo) Snapshot(ctx context.Context) (string, error) {
	tmp, err := os.MkdirTemp("", "cdevd-turn-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	// Seeded from the user's index: its stat data lets `git add` skip
	// files that did not change, which is most of them.
	seeded, err := copyFile(filepath.Join(r.gitDir, "index"), index)
	if err != nil {
		return "", err
	}
	env := r.env(index)
	if !seeded {
		// No index (a fresh repository, or one in which the user removed
		// it): start from HEAD if there is one, else from nothing.
		if _, err := r.s.git(ctx, r.Root, env, "rev-parse", "--verify", "-q", "HEAD^{tree}"); err == nil {
			if _, err := r.s.git(ctx, r.Root, env, "read-tree", "HEAD"); err != nil {
				return "", err
			}
		}
	}
	if _, err := r.s.git(ctx, r.Root, env, "add", "-A", "--", "."); err != nil {
		return "", err
	}
	out, err := r.s.git(ctx, r.Root, env, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// env points git at a temporary index and our object store, with the
// repository's objects readable as an alternate.
func (r *Repo) env(index string) []string {
	return []string{
		"GIT_INDEX_FILE=" + index,
		"GIT_OBJECT_DIRECTORY=" + r.private,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + r.objects,
	}
}

// readEnv is env for commands that only read objects.
func (r *Repo) readEnv() []string {
	return []string{"GIT_OBJECT_DIRECTORY=" + r.private, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + r.objects}
}

// copyFile copies src to dst; false if src does not exist.
func copyFile(src, dst string) (bool, error) {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, err
	}
	return true, out.Close()
}

// git runs the user's git (never through a shell) in dir and returns its
// stdout; a failure carries git's own message.
func (s *Snapshotter) git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	name := args[0]
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	// Options our parsing relies on, whatever the user's config says; and
	// no automatic gc or hooks' prompts in the middle of a snapshot.
	args = append([]string{"-c", "core.quotePath=false", "-c", "color.ui=false", "-c", "gc.auto=0", "--literal-pathspecs"}, args...)
	cmd := exec.CommandContext(ctx, s.cfg.Bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(append(os.Environ(), s.cfg.Env...), env...),
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		// Our reads must not take the user's index lock (it is not ours).
		"GIT_OPTIONAL_LOCKS=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s did not finish within %s", name, s.cfg.Timeout)
		}
		msg := strings.TrimPrefix(strings.TrimSpace(stderr.String()), "fatal: ")
		if msg == "" {
			msg = err.Error()
		}
		return stdout.Bytes(), errors.New("git " + name + ": " + msg)
	}
	return stdout.Bytes(), nil
}
