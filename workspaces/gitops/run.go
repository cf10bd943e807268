// Package gitops runs the user's own git in a workspace's repository for
// the git/* methods: their git, with their config, credentials, hooks and
// LFS, executed directly (never through a shell) with "--" before paths,
// refs checked so that none reads as an option, no terminal or askpass
// prompt (a push that needs a password fails with git's message instead of
// hanging), a timeout per call and a cap on what is read of its output.
// Writes to one repository take turns (one mutex per repository root);
// reads run concurrently, as git's own locking allows.
package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults for Config.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultNetworkTimeout = 2 * time.Minute
	DefaultMaxOutput      = 8 << 20
	DefaultMaxDiff        = 512 << 10
)

// Config configures the Git service.
type Config struct {
	// Bin is the git to run; default "git" on PATH.
	Bin string
	// Timeout bounds a local command; NetworkTimeout one that talks to a
	// remote (push, pull, fetch).
	Timeout, NetworkTimeout time.Duration
	// MaxOutput caps what is read of a command's output; MaxDiff one diff.
	MaxOutput, MaxDiff int
	// Env is added to the daemon's environment (tests point HOME at a
	// directory of their own).
	Env []string
}

// Git runs git for the workspaces. It is safe for concurrent use.
type Git struct {
	cfg   Config
	locks sync.Map // repository root → *sync.Mutex: one write at a time
	roots sync.Map // workspace folder → repository root, checked on use
}

// New makes the service.
func New(cfg Config) *Git {
	if cfg.Bin == "" {
		cfg.Bin = "git"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.NetworkTimeout <= 0 {
		cfg.NetworkTimeout = DefaultNetworkTimeout
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.MaxDiff <= 0 {
		cfg.MaxDiff = DefaultMaxDiff
	}
	return &Git{cfg: cfg}
}

// ErrNotRepo is returned (wrapped in a NotRepoError) for a workspace that is
// not inside a git repository.
var ErrNotRepo = errors.New("not a git repository")

// NotRepoError names the folder that is not a repository.
type NotRepoError struct{ Dir string }

func (e *NotRepoError) Error() string {
	return "not a git repository: " + e.Dir + " (set one up with git/init)"
}

// Unwrap makes errors.Is(err, ErrNotRepo) true.
func (e *NotRepoError) Unwrap() error { return ErrNotRepo }

// result is one finished command.
type result struct {
	out       []byte
	stderr    string
	truncated bool
	exit      int // 0 ok, >0 git's status, -1 did not run to the end
}

// failure is the message for a command that failed: git's own words
// (stderr, else stdout), which say what to do in most cases.
func (r result) failure() string {
	msg := strings.TrimSpace(r.stderr)
	if msg == "" {
		msg = strings.TrimSpace(string(r.out))
	}
	msg = strings.TrimPrefix(msg, "fatal: ")
	msg = strings.TrimPrefix(msg, "error: ")
	if msg == "" {
		msg = fmt.Sprintf("git exited with status %d", r.exit)
	}
	return msg
}

// call says how to run one command.
type call struct {
	dir     string
	args    []string
	stdin   []byte
	network bool // talks to a remote: the longer timeout, ssh in batch mode
	max     int  // output cap; 0 is Config.MaxOutput
}

// run runs git. An error means git could not be run, or ran out of time;
// git's own failures come back as a result with exit > 0.
func (g *Git) run(ctx context.Context, c call) (result, error) {
	timeout := g.cfg.Timeout
	if c.network {
		timeout = g.cfg.NetworkTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// -c options the answers rely on; a user's config cannot turn on color
	// or quoting in output we parse. Pathspecs are literal, so a file named
	// ":(top)x" or "*" is that file.
	args := append([]string{"-c", "core.quotePath=false", "-c", "color.ui=false", "--literal-pathspecs"}, c.args...)
	cmd := exec.CommandContext(ctx, g.cfg.Bin, args...)
	cmd.Dir = c.dir
	cmd.Env = g.env(c.network)
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	max := c.max
	if max <= 0 {
		max = g.cfg.MaxOutput
	}
	stdout := &capped{max: max}
	stderr := &capped{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Its own session: no controlling terminal for ssh or a credential
	// helper to prompt on, and one group to kill on timeout (hooks and
	// helpers included).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	r := result{out: stdout.buf.Bytes(), stderr: stderr.buf.String(), truncated: stdout.truncated}
	if ctx.Err() != nil {
		return r, fmt.Errorf("git %s did not finish within %s", c.args[0], timeout)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.exit = exit.ExitCode()
	default:
		return r, fmt.Errorf("cannot run git: %w", err)
	}
	return r, nil
}

// env is the user's environment with every prompt turned off.
func (g *Git) env(network bool) []string {
	env := append(os.Environ(), g.cfg.Env...)
	env = append(env,
		"GIT_TERMINAL_PROMPT=0", // no username/password prompt on a terminal
		"GIT_ASKPASS=",          // set but empty: git asks no askpass program either
		"SSH_ASKPASS_REQUIRE=never",
		"GCM_INTERACTIVE=never", // Git Credential Manager: no dialog
		"LC_ALL=C",              // git's messages in English, which the wizard matches
		// git status refreshes the index when it can take its lock; a
		// status cdevd runs (a client's, or the watch's) holding that lock
		// would make a write racing it (ours or the user's own git) fail
		// with "index.lock: File exists". Required locks are unaffected.
		"GIT_OPTIONAL_LOCKS=0",
	)
	if network && os.Getenv("GIT_SSH_COMMAND") == "" {
		// BatchMode: ssh fails instead of asking for a passphrase or to
		// accept a host key. core.sshCommand, if the user set one, is
		// overridden by this variable, so it is kept by reading it in
		// sshCommand.
		env = append(env, "GIT_SSH_COMMAND="+g.sshCommand())
	}
	return env
}

// sshCommand is the user's ssh command (core.sshCommand) with BatchMode on.
func (g *Git) sshCommand() string {
	out, err := exec.Command(g.cfg.Bin, "config", "--global", "--get", "core.sshCommand").Output()
	cmd := strings.TrimSpace(string(out))
	if err != nil || cmd == "" {
		cmd = "ssh"
	}
	return cmd + " -o BatchMode=yes"
}

// capped keeps the first max bytes written and counts the rest away, so
// that git never blocks on a full pipe.
type capped struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room < len(p) {
		c.truncated = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// Repo is one workspace's repository.
type Repo struct {
	g    *Git
	Root string // the repository's top level, canonical
}

// Open finds the repository that holds dir (the workspace's folder).
func (g *Git) Open(ctx context.Context, dir string) (*Repo, error) {
	if root, ok := g.roots.Load(dir); ok {
		// Still a repository? (.git may have been removed since.)
		if _, err := os.Lstat(filepath.Join(root.(string), ".git")); err == nil {
			return &Repo{g: g, Root: root.(string)}, nil
		}
		g.roots.Delete(dir)
	}
	r, err := g.run(ctx, call{dir: dir, args: []string{"rev-parse", "--show-toplevel"}})
	if err != nil {
		return nil, err
	}
	if r.exit != 0 {
		if strings.Contains(r.stderr, "not a git repository") {
			return nil, &NotRepoError{Dir: dir}
		}
		return nil, errors.New(r.failure())
	}
	root, err := filepath.EvalSymlinks(strings.TrimSpace(string(r.out)))
	if err != nil {
		return nil, err
	}
	g.roots.Store(dir, root)
	return &Repo{g: g, Root: root}, nil
}

// run runs git at the repository's root.
func (r *Repo) run(ctx context.Context, args ...string) (result, error) {
	return r.g.run(ctx, call{dir: r.Root, args: args})
}

// write runs f while holding the repository's write lock.
func (r *Repo) write(f func()) {
	m, _ := r.g.locks.LoadOrStore(r.Root, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	f()
}
