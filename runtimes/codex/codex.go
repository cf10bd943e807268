// Package codex is the OpenAI Codex CLI adapter. Each session is one
// long-lived `codex app-server` process speaking JSON-RPC over stdio
// (runtimes/stdiorpc): initialize, then thread/start (Codex chooses the
// thread id, which is the session id) or thread/resume, then one turn/start
// per turn. Its notifications become runtimes events (notify.go), its
// approval and question requests become prompts (prompts.go).
//
// Stored threads are read by the rollout sub-package, which converts thread
// items the same way as the live notifications (rollout.ItemMessage), so that
// live and stored messages have the same ids and content.
package codex

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/codex/rollout"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// ID is the runtime id, the agent_type clients send.
const ID = "codex"

// DefaultStallTimeout is how long a turn may go without output before the
// process is considered hung. Generous: a long command prints nothing.
const DefaultStallTimeout = 5 * time.Minute

// handshakeTimeout bounds initialize and thread/start|resume when the
// caller's ctx has none. Measured: 0.15-0.34 s to initialize, 20-50 ms for
// the thread; a CLI that says nothing for this long will not.
const handshakeTimeout = 30 * time.Second

// Config configures the adapter.
type Config struct {
	Bin string   // CODEX_BIN or "codex" looked up on PATH
	Env []string // the CLI's whole environment; nil → os.Environ() but CDEVD_TOKEN
	// Home is the Codex home whose sessions/ holds the rollouts; "" →
	// CODEX_HOME, else $HOME/.codex, from Env.
	Home         string
	StallTimeout time.Duration // no output while a turn runs (default 5m)
	KillGrace    time.Duration
	// Watcher follows rollouts; nil uses the process's shared one.
	Watcher *fswatch.Watcher
	// CacheDir keeps the indexes of big rollouts across restarts
	// ($CDEVD_HOME/cache/codex); "" keeps them in memory only.
	CacheDir string
	Logger   *zap.Logger
}

// Adapter runs Codex sessions. It implements runtimes.Adapter.
type Adapter struct {
	cfg      Config
	log      *zap.Logger
	rollouts *rollout.Store
	// tap sees every stdout line of every session (tests capture goldens).
	tap func(line []byte)
	// login is what turns found of the CLI's login.
	login *kit.Login
}

var _ runtimes.Adapter = (*Adapter)(nil)

// New returns an adapter with cfg's defaults filled in.
func New(cfg Config) *Adapter {
	if cfg.Env == nil {
		cfg.Env = kit.Env()
	}
	cfg.Bin = kit.Bin(cfg.Bin, cfg.Env, program.BinEnv, program.Command) // a relative path made absolute, here and now
	if cfg.Home == "" {
		cfg.Home = codexHome(cfg.Env)
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	log := cfg.Logger.With(zap.String("runtime", ID))
	return &Adapter{cfg: cfg, log: log, rollouts: rollout.New(cfg.Home, log).WithWatcher(cfg.Watcher).WithCacheDir(cfg.CacheDir),
		login: kit.NewLogin(loginFix)}
}

// program is the program this runtime runs, the variable that names it, and
// the one that names its home.
var program = runtimes.CLI{Command: "codex", BinEnv: "CODEX_BIN", HomeEnv: "CODEX_HOME"}

// codexHome is where the CLI run with env keeps its state.
func codexHome(env []string) string {
	if dir := kit.LookupEnv(env, program.HomeEnv); dir != "" {
		return dir
	}
	return filepath.Join(kit.Home(env), ".codex")
}

// Info describes the adapter. Every feature is proven by a real-CLI test in
// this package (live_test.go).
func (a *Adapter) Info() runtimes.Info {
	return runtimes.Info{
		ID:          ID,
		DisplayName: "Codex CLI",
		Maturity:    runtimes.Complete,
		Features: runtimes.Features{
			Resume:               true,
			InteractiveQuestions: true,
			Permissions:          true,
			IDKnownAtStart:       true,
			Steering:             true, // turn/steer
			Configure:            true,
		},
		CLI:             program,
		EchoesPrompts:   true, // the userMessage item, with the rollout's id
		ClientIDs:       false,
		PermissionModes: permissionModes,
		ConfigureModes:  configureModes,
		// Images as localImage input items, files named in the text
		// (live_attachments_test.go).
		Attachments: []rpc.AttachmentKind{rpc.AttachImage, rpc.AttachFile},
	}
}

// version matches the CLI's "codex-cli 0.169.0".
var version = regexp.MustCompile(`\d+\.\d+\.\d+\S*`)

// Detect finds the CLI, asks for its version and whether it can answer.
func (a *Adapter) Detect(ctx context.Context) runtimes.Availability {
	av := kit.DetectVersion(ctx, ID, a.cfg.Bin, program.BinEnv, a.cfg.Env, version)
	return kit.DetectLogin(ctx, av, a.checkLogin, a.login)
}

// Unauthenticated is the reason a turn found the CLI logged out, if one
// stands (the registry reads it at every status).
func (a *Adapter) Unauthenticated() (string, bool) { return a.login.Unauthenticated() }

// ReportUnauthenticated makes the runtime unusable at once: a turn failed
// for lack of login; detail is what the CLI said.
func (a *Adapter) ReportUnauthenticated(detail string) { a.login.ReportUnauthenticated(detail) }

// permissionModes are the modes policy maps faithfully onto Codex.
var permissionModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionBypass,
	rpc.PermissionPlan, rpc.PermissionInteractive}

// threadPolicy is what a session runs under: Codex's approval policy and
// sandbox, and whether turns run in plan mode.
type threadPolicy struct {
	Approval string
	Sandbox  string
	Plan     bool
}

// policy maps the protocol's permission mode onto Codex. Codex's own
// defaults (on-request + read-only) run nothing and ask nothing: a write
// command fails inside the sandbox and only the model learns of it. So
// every mode passes both values explicitly:
//   - default, interactive (and no mode): untrusted + workspace-write, which
//     asks before any command that is not known to be read-only;
//   - plan: the same, with Codex's plan collaboration mode (the model plans
//     and may ask questions; it does not edit);
//   - bypassPermissions, or yolo: never + danger-full-access.
//
// acceptEdits has no faithful Codex form (Codex cannot allow file edits
// while asking for commands) and is refused.
func policy(req runtimes.StartRequest) (threadPolicy, error) {
	if req.Yolo {
		return threadPolicy{Approval: "never", Sandbox: "danger-full-access"}, nil
	}
	switch req.PermissionMode {
	case "", rpc.PermissionDefault, rpc.PermissionInteractive:
		return threadPolicy{Approval: "untrusted", Sandbox: "workspace-write"}, nil
	case rpc.PermissionPlan:
		return threadPolicy{Approval: "untrusted", Sandbox: "workspace-write", Plan: true}, nil
	case rpc.PermissionBypass:
		return threadPolicy{Approval: "never", Sandbox: "danger-full-access"}, nil
	}
	return threadPolicy{}, fmt.Errorf("codex: permission mode %q is not supported (want one of %v)", req.PermissionMode, permissionModes)
}

// Start spawns `codex app-server`, initializes it and starts or resumes a
// thread; the thread id is the session id. Resuming a thread Codex does not
// know fails with an error wrapping runtimes.ErrNoSession.
func (a *Adapter) Start(ctx context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Dir == "" {
		return nil, errors.New("codex: no working directory")
	}
	switch {
	case req.Resume:
		if err := runtimes.ValidSessionID(req.SessionID); err != nil {
			return nil, fmt.Errorf("codex: resume: %w", err)
		}
	case req.SessionID != "":
		return nil, fmt.Errorf("codex: a new thread's id is chosen by Codex; %q cannot be used", req.SessionID)
	}
	pol, err := policy(req)
	if err != nil {
		return nil, err
	}
	if sink == nil {
		sink = func(runtimes.Event) {}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, handshakeTimeout)
		defer cancel()
	}
	return a.start(ctx, req, pol, a.login.Watch(sink))
}

// Transcripts reads the rollouts under the Codex home.
func (a *Adapter) Transcripts() runtimes.Transcripts { return a.rollouts }
