package acp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// DefaultStallTimeout is how long a turn may go without output before the
// agent is considered hung.
const DefaultStallTimeout = 5 * time.Minute

// handshakeTimeout bounds initialize and session/new|load when the caller's
// ctx has none: generous, as Gemini answers initialize in 1-1.7 s and its
// load may wait for the minute to turn (runtimes/gemini).
const handshakeTimeout = 2 * time.Minute

// Spec describes one ACP agent as a cdevd runtime.
type Spec struct {
	ID          string // the agent_type clients send
	DisplayName string
	Maturity    runtimes.Maturity
	Command     string   // looked up on PATH unless absolute
	Args        []string // what makes it speak ACP on stdio ("--acp")
	// Env is the agent's whole environment; nil → kit.Env().
	Env []string
	// CommandSource names where Command came from, for the reason given
	// when it is missing ("GEMINI_BIN", "config.toml").
	CommandSource string
	// CLI is what Info says of the program; a declared agent has none of
	// its variables.
	CLI runtimes.CLI
	// ModelArgs are the arguments that select a model; nil: the agent has
	// no such option and a model asked for is refused.
	ModelArgs func(model string) []string
	// ReadDirArgs are the arguments that let the agent read a folder besides
	// its working directory (StartRequest.ReadDirs: cdevd's attachments,
	// whose paths prompts name); nil: the agent is given none, and reads
	// what its own rules allow.
	ReadDirArgs func(dir string) []string
	// Modes maps permission modes to the agent's session mode ids, set with
	// session/set_mode after the session starts; an empty id keeps the
	// agent's default. Only default (the agent's own unless listed) and the
	// modes listed are accepted, and yolo means PermissionBypass's mode.
	Modes map[rpc.PermissionMode]string
	// Attachments are the kinds a turn may carry, as a real-agent test
	// proves; nil is files alone (named in the prompt's text, which every
	// agent takes). Images go only to an agent whose initialize says
	// promptCapabilities.image.
	Attachments []rpc.AttachmentKind
	// Transcripts reads the agent's stored sessions; nil when cdevd has no
	// reader for them (then there is no history, and messages are
	// assembled from the stream).
	Transcripts runtimes.Transcripts
	// Resume: the runtime resumes with session/load, which a real-agent
	// test proves. Without it, a declared agent resumes only if its
	// initialize advertises loadSession.
	Resume bool
	// UnknownSession reports whether session/load's error means the agent
	// keeps no such session (ACP names no code for it); nil: an error whose
	// message says "not found".
	UnknownSession func(*stdiorpc.Error) bool
	// BeforeLoad runs in Start before session/load (Gemini waits out the
	// minute in which the session's file was created).
	BeforeLoad func(ctx context.Context, dir, sessionID string) error
	// Detect finds the agent; nil runs the agent and asks it to initialize
	// (its login is then unknown).
	Detect func(ctx context.Context) runtimes.Availability
	// Login is what turns found of the agent's login (a turn failing with
	// kit.CodeAuthRequired makes the runtime unusable at once); nil: one
	// of the adapter's own.
	Login *kit.Login
	// Configure: a running session switches model (session/set_model) and
	// permission mode (session/set_mode) at the next turn, as a real-agent
	// test proves; ACP marks set_model unstable, so a declared agent does
	// not claim it.
	Configure bool
	// ModelSilence, when set, gives up a turn that waits on the model (no
	// tool call open) and hears nothing from the agent for that long: for
	// agents that retry a failing model API without a word (silence.go).
	ModelSilence time.Duration

	StallTimeout time.Duration
	KillGrace    time.Duration
	Logger       *zap.Logger
}

// Adapter runs the sessions of one ACP agent. It implements runtimes.Adapter.
type Adapter struct {
	spec Spec
	log  *zap.Logger
	// loads: the agent advertised loadSession when it last initialized.
	loads atomic.Bool
	// tap sees every stdout line of every session (tests capture goldens).
	tap func(line []byte)
}

var _ runtimes.Adapter = (*Adapter)(nil)

// New returns an adapter for spec, with its defaults filled in.
func New(spec Spec) *Adapter {
	if spec.Env == nil {
		spec.Env = kit.Env()
	}
	if spec.DisplayName == "" {
		spec.DisplayName = spec.ID
	}
	if spec.StallTimeout <= 0 {
		spec.StallTimeout = DefaultStallTimeout
	}
	if spec.Logger == nil {
		spec.Logger = zap.NewNop()
	}
	if spec.Login == nil {
		spec.Login = kit.NewLogin("")
	}
	if spec.UnknownSession == nil {
		spec.UnknownSession = func(e *stdiorpc.Error) bool {
			return strings.Contains(strings.ToLower(e.Message), "not found")
		}
	}
	return &Adapter{spec: spec, log: spec.Logger.With(zap.String("runtime", spec.ID))}
}

// Info describes the adapter: permissions are always asked through the
// client (every ACP agent may ask); ACP has no questions; resume as Spec.Resume
// or the agent's own word says.
func (a *Adapter) Info() runtimes.Info {
	// default is the agent's own default: every agent has one.
	modes := []rpc.PermissionMode{rpc.PermissionDefault}
	for _, m := range []rpc.PermissionMode{rpc.PermissionAcceptEdits,
		rpc.PermissionBypass, rpc.PermissionPlan, rpc.PermissionInteractive} {
		if _, ok := a.spec.Modes[m]; ok {
			modes = append(modes, m)
		}
	}
	return runtimes.Info{
		ID:          a.spec.ID,
		DisplayName: a.spec.DisplayName,
		Maturity:    a.spec.Maturity,
		Features: runtimes.Features{
			Resume:         a.spec.Resume || a.loads.Load(),
			Permissions:    true,
			IDKnownAtStart: true,
			Configure:      a.spec.Configure,
		},
		// With a transcript reader, the session emits each prompt as
		// stored (its id is the one history shows); otherwise the engine
		// announces it.
		EchoesPrompts:   a.spec.Transcripts != nil,
		ClientIDs:       false, // session/new returns the agent's id
		PermissionModes: modes,
		ConfigureModes:  configureModes(a.spec.Configure, modes),
		Attachments:     a.attachments(),
		CLI:             a.spec.CLI,
	}
}

// configureModes are the modes a running session switches to: every mode
// it can start in, through session/set_mode, when it can be configured.
func configureModes(configure bool, modes []rpc.PermissionMode) []rpc.PermissionMode {
	if !configure {
		return nil
	}
	return modes
}

// attachments are the kinds the agent's turns take: files always (named in
// the prompt's text), images where its spec says so.
func (a *Adapter) attachments() []rpc.AttachmentKind {
	if a.spec.Attachments == nil {
		return []rpc.AttachmentKind{rpc.AttachFile}
	}
	return a.spec.Attachments
}

// Detect finds the agent: Spec.Detect, else the command on PATH answering
// initialize.
func (a *Adapter) Detect(ctx context.Context) runtimes.Availability {
	if a.spec.Detect != nil {
		return a.spec.Detect(ctx)
	}
	path, err := exec.LookPath(a.spec.Command)
	if err != nil {
		return runtimes.Availability{Reason: fmt.Sprintf("%s: command %q not found (%s)", a.spec.ID, a.spec.Command, a.source())}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, kit.DetectTimeout)
		defer cancel()
	}
	info, err := a.probe(ctx, path)
	av := runtimes.Availability{Installed: true, Path: path}
	if err != nil {
		av.Reason = fmt.Sprintf("%s did not answer ACP initialize: %v", path, err)
		return av
	}
	av.Version = info.version
	if av.Version == "" {
		av.Version = "unknown" // ACP makes agentInfo optional
	}
	av.Login = runtimes.LoginUnknown // ACP has no way to ask without a session
	return av
}

// Unauthenticated is the reason a turn found the agent logged out, if one
// stands (the registry reads it at every status).
func (a *Adapter) Unauthenticated() (string, bool) { return a.spec.Login.Unauthenticated() }

// ReportUnauthenticated makes the runtime unusable at once: a turn failed
// for lack of login; detail is what the agent said.
func (a *Adapter) ReportUnauthenticated(detail string) { a.spec.Login.ReportUnauthenticated(detail) }

func (a *Adapter) source() string {
	if a.spec.CommandSource != "" {
		return "set by " + a.spec.CommandSource
	}
	return "not on PATH"
}

// Start spawns the agent and starts a session (session/new) or resumes one
// (session/load). A session the agent does not know is an error wrapping
// runtimes.ErrNoSession.
func (a *Adapter) Start(ctx context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Dir == "" {
		return nil, fmt.Errorf("%s: no working directory", a.spec.ID)
	}
	switch {
	case req.Resume:
		if err := runtimes.ValidSessionID(req.SessionID); err != nil {
			return nil, fmt.Errorf("%s: resume: %w", a.spec.ID, err)
		}
	case req.SessionID != "":
		return nil, fmt.Errorf("%s: a new session's id is chosen by the agent; %q cannot be used", a.spec.ID, req.SessionID)
	}
	mode, err := a.modeFor(req)
	if err != nil {
		return nil, err
	}
	var args []string
	args = append(args, a.spec.Args...)
	if req.Model != "" {
		if a.spec.ModelArgs == nil {
			return nil, fmt.Errorf("%s: the agent has no model option; %q cannot be used", a.spec.ID, req.Model)
		}
		args = append(args, a.spec.ModelArgs(req.Model)...)
	}
	if a.spec.ReadDirArgs != nil {
		for _, d := range req.ReadDirs {
			args = append(args, a.spec.ReadDirArgs(d)...)
		}
	}
	if sink == nil {
		sink = func(runtimes.Event) {}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, handshakeTimeout)
		defer cancel()
	}
	return a.start(ctx, req, args, mode, a.spec.Login.Watch(sink))
}

// modeFor is the agent's session mode for req's permission mode ("" keeps
// the agent's default).
func (a *Adapter) modeFor(req runtimes.StartRequest) (string, error) {
	m := req.PermissionMode
	if req.Yolo {
		m = rpc.PermissionBypass
	}
	if m == "" || m == rpc.PermissionDefault {
		return a.spec.Modes[rpc.PermissionDefault], nil
	}
	id, ok := a.spec.Modes[m]
	if !ok {
		return "", fmt.Errorf("%s: permission mode %q is not supported (want one of %v)", a.spec.ID, m, a.Info().PermissionModes)
	}
	return id, nil
}

// Transcripts is Spec.Transcripts: nil when cdevd cannot read the agent's
// stored sessions.
func (a *Adapter) Transcripts() runtimes.Transcripts {
	if a.spec.Transcripts == nil {
		return nil // a typed nil would look like a reader
	}
	return a.spec.Transcripts
}

// errNoLoad is a resume asked of an agent that cannot load sessions.
var errNoLoad = errors.New("the agent does not advertise loadSession")
