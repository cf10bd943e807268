package scripted

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc"
)

// ID is the scripted runtime's agent_type.
const ID = "scripted"

// DefaultStallTimeout is how long a turn may go without output.
const DefaultStallTimeout = 30 * time.Second

// Config configures the adapter.
type Config struct {
	Bin          string        // the fake CLI (usually os.Args[0]); "" → Detect says not installed
	StateDir     string        // where transcripts are kept (like ~/.claude/projects)
	StallTimeout time.Duration // proc stall timeout while a turn runs (DefaultStallTimeout)
	KillGrace    time.Duration // proc.DefaultKillGrace when zero
	MaxLine      int           // proc MaxLine (proc.DefaultMaxLine)
	// TranscriptDelay makes the fake write each transcript line this long
	// after printing it, as real CLIs may (Claude writes a turn's lines
	// after its result).
	TranscriptDelay time.Duration
	// CLIChoosesIDs makes the fake behave like Codex and Gemini: the CLI
	// chooses each new session's id, and a client's id is refused.
	CLIChoosesIDs bool
	// Features overrides the advertised features; nil advertises them all.
	Features *runtimes.Features
	// Watcher follows transcripts; nil uses the process's shared one.
	Watcher *fswatch.Watcher
	Logger  *zap.Logger

	clock proc.Clock // the stall timer's clock, for tests
}

// Adapter is the scripted runtime.
type Adapter struct {
	cfg         Config
	log         *zap.Logger
	transcripts *store
}

var _ runtimes.Adapter = (*Adapter)(nil)

// New returns an adapter that runs cfg.Bin as its CLI.
func New(cfg Config) *Adapter {
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = proc.DefaultMaxLine
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	log := cfg.Logger.With(zap.String("runtime", ID))
	a := &Adapter{cfg: cfg, log: log}
	if cfg.StateDir != "" {
		a.transcripts = newStore(cfg.StateDir, log, cfg.Watcher)
	}
	return a
}

// permissionModes are the modes the fake CLI honours: it asks about every
// tool (default, interactive) or about none (bypassPermissions). It knows no
// edit tools and does not plan, so acceptEdits and plan are not offered.
var permissionModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionBypass, rpc.PermissionInteractive}

// Info describes the adapter.
func (a *Adapter) Info() runtimes.Info {
	// Configure: a turn's model is put on its assistant messages (the
	// fake has no effort and no permission modes to switch to).
	f := runtimes.Features{Resume: true, InteractiveQuestions: true, Permissions: true, IDKnownAtStart: true,
		ActivateOnResume: true, Configure: true, Steering: true}
	if a.cfg.Features != nil {
		f = *a.cfg.Features
	}
	return runtimes.Info{ID: ID, DisplayName: "Scripted (test)", Maturity: runtimes.Complete, Features: f,
		EchoesPrompts: true, PermissionModes: permissionModes, ClientIDs: !a.cfg.CLIChoosesIDs}
}

// Detect runs the CLI's --version.
func (a *Adapter) Detect(ctx context.Context) runtimes.Availability {
	if a.cfg.Bin == "" {
		return runtimes.Availability{Reason: "no scripted CLI is configured"}
	}
	path, err := exec.LookPath(a.cfg.Bin)
	if err != nil {
		return runtimes.Availability{Reason: err.Error()}
	}
	av := runtimes.Availability{Installed: true, Path: path}
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = a.env()
	out, err := cmd.Output()
	if err != nil {
		av.Reason = fmt.Sprintf("%s --version: %v", path, err)
		return av
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "scripted ")
	if !ok {
		av.Reason = fmt.Sprintf("%s --version printed %q", path, out)
		return av
	}
	av.Version = v
	return av
}

// env is the fake's environment: ours, plus the switch that makes the test
// binary act as the CLI.
func (a *Adapter) env() []string {
	// The fake is usually a -race test binary, which otherwise sleeps a
	// second before every exit.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return append(os.Environ(), cliEnv+"=1", "GORACE="+gorace)
}

// Start spawns the fake CLI and waits for its handshake.
func (a *Adapter) Start(ctx context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	if a.cfg.StateDir == "" {
		return nil, fmt.Errorf("scripted: no StateDir configured")
	}
	id := req.SessionID
	switch {
	case id == "" && a.cfg.CLIChoosesIDs:
		// The CLI says which in its first line.
	case id == "":
		id = uuid.NewString()
	case a.cfg.CLIChoosesIDs && !req.Resume:
		return nil, fmt.Errorf("scripted: this CLI chooses its session ids; cannot start %q", id)
	}
	if err := runtimes.ValidSessionID(id); id != "" && err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	// Values joined to their flags, so that none is ever read as a flag.
	args := []string{"--dir=" + req.Dir, "--state-dir=" + a.cfg.StateDir}
	if id != "" {
		args = append(args, "--session-id="+id)
	}
	if req.Resume {
		args = append(args, "--resume")
	}
	if req.Model != "" {
		args = append(args, "--model="+req.Model)
	}
	if req.PermissionMode != "" {
		args = append(args, "--permission-mode="+string(req.PermissionMode))
	}
	if req.Yolo {
		args = append(args, "--yolo")
	}
	if a.cfg.TranscriptDelay > 0 {
		args = append(args, "--transcript-delay="+a.cfg.TranscriptDelay.String())
	}

	log := a.log.With(zap.String("session", id))
	s := newSession(id, sink, a.cfg, log)
	p, err := proc.Start(proc.Config{
		Path:         a.cfg.Bin,
		Args:         args,
		Dir:          req.Dir,
		Env:          a.env(),
		StallTimeout: a.cfg.StallTimeout,
		KillGrace:    a.cfg.KillGrace,
		MaxLine:      a.cfg.MaxLine,
		OnLine:       s.onLine,
		OnStderr:     func(l []byte) { log.Debug("cli stderr", zap.ByteString("line", l)) },
		OnOversize:   s.onOversize,
		OnStall:      s.onStall,
		Clock:        a.cfg.clock,
		Logger:       log,
	})
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	s.attach(p)

	// Like a real CLI's init message: the process is up, and the session
	// exists (or the resume failed).
	fail := func(err error) (runtimes.Session, error) {
		_ = p.Stop(ctx)
		return nil, err
	}
	var h output
	select {
	case h = <-s.hello:
	case <-p.Done():
		// Every line was read by now: the CLI may have said why it quit.
		select {
		case h = <-s.hello:
		default:
			return nil, fmt.Errorf("scripted: the CLI exited at start (exit code %d)", p.ExitCode())
		}
	case <-ctx.Done():
		return fail(fmt.Errorf("scripted: waiting for the CLI to start: %w", ctx.Err()))
	}
	switch {
	case h.Type == outInit && runtimes.ValidSessionID(h.SessionID) == nil:
		s.id = h.SessionID
	case h.Code == codeNoSession:
		return fail(fmt.Errorf("scripted: resume %s: %w", id, runtimes.ErrNoSession))
	default:
		return fail(fmt.Errorf("scripted: start: %s", h.Error))
	}
	s.run()
	return s, nil
}

// Transcripts reads the transcripts the fake writes; nil without a StateDir.
func (a *Adapter) Transcripts() runtimes.Transcripts {
	if a.transcripts == nil {
		return nil
	}
	return a.transcripts
}
