// Package turns records what an agent's turn did to a workspace and takes
// it back: a snapshot of the working tree at a turn's start and end, the
// diff between the two, and a revert that restores the files the turn
// changed.
//
// A snapshot is a git tree made with the user's own git but nothing of the
// user's: a private index kept per repository under cdevd's home (first a
// copy of theirs, so unchanged files are not hashed again; then current
// from one snapshot to the next, see ahead.go), `git add -A` and `git
// write-tree` with that index, and the new objects written to a private
// object store under cdevd's home that borrows the repository's objects as
// an alternate. With a tree watch, the last snapshot stands for the next
// when nothing in the tree changed since (ahead.go).
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
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
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
	// Watcher, when set, watches each snapshotted repository's tree so
	// that the last snapshot is reused while nothing changed (ahead.go);
	// nil: every snapshot runs git. Close ends the watches.
	Watcher *fswatch.Watcher
	// WatchIdle is how long a repository's watch is kept after its last
	// snapshot; default 15 minutes.
	WatchIdle time.Duration
}

// Snapshotter takes snapshots, diffs and reverts. Safe for concurrent use.
type Snapshotter struct {
	cfg    Config
	counts counters
	closed atomic.Bool

	mu    sync.Mutex
	repos map[string]*repoState // by repository root

	// afterTake, when set (tests), runs once git made a snapshot, before
	// it is handed back: a change there is one a reuse must not hide.
	afterTake func()
}

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
	if cfg.WatchIdle <= 0 {
		cfg.WatchIdle = 15 * time.Minute
	}
	return &Snapshotter{cfg: cfg, repos: map[string]*repoState{}}
}

// Repo is one workspace's repository as the snapshots see it.
type Repo struct {
	s       *Snapshotter
	Root    string // the repository's top level, canonical
	gitDir  string // the repository's git directory, absolute
	objects string // the repository's object store (borrowed, never written)
	private string // our object store for this repository
	exclude string // the repository's info/exclude (its rules move the snapshot)
	index   string // our index for this repository (ahead.go)
	state   *repoState
}

// Open finds the repository that holds dir and prepares its private object
// store.
func (s *Snapshotter) Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := s.git(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir",
		"--git-path", "objects", "--git-path", "info/exclude")
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			return nil, ErrNotRepo
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 {
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
	return &Repo{s: s, Root: root, gitDir: lines[1], objects: lines[2], private: private,
		exclude: lines[3], index: filepath.Join(s.cfg.Home, "index", storeName(root)), state: s.state(root)}, nil
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

// copyFile copies src to dst, with src's modification time; false if src
// does not exist. The time matters for an index: git re-reads the files
// whose stat data is not older than the index's own (racily clean), which
// a copy dated now would hide.
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
	if err := out.Close(); err != nil {
		return false, err
	}
	fi, err := in.Stat()
	if err != nil {
		return false, err
	}
	return true, os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}

// git runs the user's git (never through a shell) in dir and returns its
// stdout; a failure carries git's own message.
func (s *Snapshotter) git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	name := args[0]
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	// Options our parsing relies on, whatever the user's config says; and
	// no automatic gc or hooks' prompts in the middle of a snapshot.
	// A split index or an fsmonitor of the user's would tie our private
	// index to files in their .git.
	args = append([]string{"-c", "core.quotePath=false", "-c", "color.ui=false", "-c", "gc.auto=0",
		"-c", "core.splitIndex=false", "-c", "core.fsmonitor=false", "--literal-pathspecs"}, args...)
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
