// Package claude is the Claude Code adapter. Each session is one long-lived
// `claude -p` process speaking stream-json on stdin and stdout: a stdin line
// per turn, control responses for its permission and question prompts, and
// an interrupt request; its stdout lines become runtimes events (stream.go).
// The session id is passed to the CLI (--session-id / --resume), so it is
// final before the process has printed anything.
//
// Stored sessions are read by the transcript sub-package, which also converts
// the CLI's message lines, so that live and stored messages are identical.
package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/transcript"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// ID is the runtime id, the agent_type clients send.
const ID = "claude"

// DefaultStallTimeout is how long a turn may go without output before the
// process is considered hung. Generous: a long tool run prints nothing.
const DefaultStallTimeout = 5 * time.Minute

// Config configures the adapter.
type Config struct {
	Bin          string        // CLAUDE_BIN or "claude" looked up on PATH
	Env          []string      // the CLI's whole environment; nil → os.Environ() but CDEVD_TOKEN
	ProjectsDir  string        // transcripts root; "" → $HOME/.claude/projects from Env/HOME
	StallTimeout time.Duration // no output while a turn runs (default 5m)
	KillGrace    time.Duration
	// Watcher follows transcripts; nil uses the process's shared one (one
	// inotify instance for everything, see fswatch).
	Watcher *fswatch.Watcher
	// CacheDir keeps the indexes of big transcripts across restarts
	// ($CDEVD_HOME/cache/claude); "" keeps them in memory only.
	CacheDir string
	Logger   *zap.Logger
}

// Adapter runs Claude Code sessions. It implements runtimes.Adapter.
type Adapter struct {
	cfg         Config
	log         *zap.Logger
	transcripts *transcript.Store
	login       *kit.Login
}

var _ runtimes.Adapter = (*Adapter)(nil)

// program is the program this runtime runs, and the variable that names it.
var program = runtimes.CLI{Command: "claude", BinEnv: "CLAUDE_BIN"}

// New returns an adapter with cfg's defaults filled in.
func New(cfg Config) *Adapter {
	if cfg.Env == nil {
		cfg.Env = kit.Env()
	}
	cfg.Bin = kit.Bin(cfg.Bin, cfg.Env, program.BinEnv, program.Command) // a relative path made absolute, here and now
	if cfg.ProjectsDir == "" {
		cfg.ProjectsDir = projectsDir(cfg.Env)
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	log := cfg.Logger.With(zap.String("runtime", ID))
	return &Adapter{cfg: cfg, log: log, transcripts: transcript.New(cfg.ProjectsDir, log).WithWatcher(cfg.Watcher).WithCacheDir(cfg.CacheDir),
		login: kit.NewLogin(loginFix)}
}

// projectsDir is where the CLI run with env keeps its transcripts.
func projectsDir(env []string) string {
	if dir := kit.LookupEnv(env, "CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "projects")
	}
	return filepath.Join(kit.Home(env), ".claude", "projects")
}

// Info describes the adapter. Every feature is proven by a real-CLI test in
// this package.
func (a *Adapter) Info() runtimes.Info {
	return runtimes.Info{
		ID:          ID,
		DisplayName: "Claude Code",
		Maturity:    runtimes.Complete,
		Features: runtimes.Features{
			Resume:               true,
			InteractiveQuestions: true,
			Permissions:          true,
			IDKnownAtStart:       true,
			ActivateOnResume:     true,
			Configure:            true,
			// No Steering: a line written mid-turn joins the turn only
			// if the model calls a tool, else it runs as a turn of its
			// own (live_steer_test.go, docs/runtimes.md).
		},
		CLI:             program,
		EchoesPrompts:   true, // --replay-user-messages
		ClientIDs:       true, // --session-id runs a new session under a client's UUID
		PermissionModes: permissionModes,
		ConfigureModes:  configureModes,
		// Images as image blocks of the user message, files named in its
		// text (live_attachments_test.go).
		Attachments: []rpc.AttachmentKind{rpc.AttachImage, rpc.AttachFile},
	}
}

// version matches the CLI's "2.1.197 (Claude Code)".
var version = regexp.MustCompile(`^\d+\.\d+\.\d+\S*`)

// Detect finds the CLI, asks for its version and whether it is logged in.
func (a *Adapter) Detect(ctx context.Context) runtimes.Availability {
	av := kit.DetectVersion(ctx, ID, a.cfg.Bin, program.BinEnv, a.cfg.Env, version)
	return kit.DetectLogin(ctx, av, a.checkLogin, a.login)
}

// loginFix is how to make the CLI able to answer.
const loginFix = "run `claude` once in a terminal and log in (or set ANTHROPIC_API_KEY)"

// checkLogin asks the CLI itself: `claude auth status --json` prints
// {"loggedIn":…,"authMethod":…} and exits 1 when logged out. It reads the
// CLI's settings and credentials (an API key in the environment, an
// apiKeyHelper, Bedrock or Vertex, the OAuth credentials in
// ~/.claude/.credentials.json or the keychain) and sends no request.
func (a *Adapter) checkLogin(ctx context.Context, path string) kit.LoginCheck {
	code, out, _, err := kit.Status(ctx, path, a.cfg.Env, "auth", "status", "--json")
	var st struct {
		LoggedIn   *bool  `json:"loggedIn"`
		AuthMethod string `json:"authMethod"`
	}
	if err != nil || json.Unmarshal(out, &st) != nil || st.LoggedIn == nil {
		return kit.Unknown() // an older CLI without `auth status`, or one that did not answer
	}
	dir := kit.LookupEnv(a.cfg.Env, "CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = filepath.Join(kit.Home(a.cfg.Env), ".claude")
	}
	changed, _ := kit.Newest(filepath.Join(dir, ".credentials.json"))
	if *st.LoggedIn && code == 0 {
		return kit.LoginCheck{State: runtimes.LoggedIn, Changed: changed}
	}
	return kit.LoginCheck{State: runtimes.LoggedOut, Changed: changed,
		Reason: "claude is not logged in (`claude auth status`): " + loginFix}
}

// Unauthenticated is the reason a turn found the CLI logged out, if one
// stands (the registry reads it at every status).
func (a *Adapter) Unauthenticated() (string, bool) { return a.login.Unauthenticated() }

// ReportUnauthenticated makes the runtime unusable at once: a turn failed
// for lack of login; detail is what the CLI said.
func (a *Adapter) ReportUnauthenticated(detail string) { a.login.ReportUnauthenticated(detail) }

// Start spawns the CLI for req. A resumed id must have a transcript; a new
// one must be a UUID (the CLI's own requirement), and is generated when empty.
func (a *Adapter) Start(ctx context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Dir == "" {
		return nil, errors.New("claude: no working directory")
	}
	id := req.SessionID
	switch {
	case req.Resume:
		if _, err := a.transcripts.Path(req.Dir, id); err != nil {
			return nil, fmt.Errorf("claude: resume %q: %w", id, err)
		}
	case id == "":
		id = uuid.NewString()
	default:
		if _, err := uuid.Parse(id); err != nil {
			return nil, fmt.Errorf("claude: session id %q is not a UUID", id)
		}
	}
	argv, err := args(req, id)
	if err != nil {
		return nil, err
	}
	log := a.log.With(zap.String("session", id))
	s := newSession(id, a.login.Watch(sink), log)
	s.config = startConfig(req)
	p, err := proc.Start(proc.Config{
		Path:         a.cfg.Bin,
		Args:         argv,
		Dir:          req.Dir,
		Env:          env(a.cfg.Env, req),
		StallTimeout: a.cfg.StallTimeout,
		KillGrace:    a.cfg.KillGrace,
		OnLine:       s.handleLine,
		OnStderr:     func(line []byte) { log.Debug("claude stderr", zap.ByteString("line", line)) },
		OnOversize:   s.oversize,
		OnStall:      s.stall,
		Logger:       log,
	})
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	s.run(p)
	log.Info("claude started", zap.Int("pid", p.Pid()), zap.Bool("resume", req.Resume),
		zap.String("model", req.Model), zap.String("dir", req.Dir))
	return s, nil
}

// Transcripts reads the sessions the CLI stored under ProjectsDir.
func (a *Adapter) Transcripts() runtimes.Transcripts { return a.transcripts }
