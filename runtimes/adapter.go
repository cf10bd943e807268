package runtimes

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/cdevd/cdevd/rpc"
)

// Adapter is one agent runtime (Claude Code, Codex, Gemini, …).
type Adapter interface {
	// Info describes the adapter itself; it does not look at the machine.
	Info() Info
	// Detect looks for the CLI on this machine (path, --version). It must
	// return within ctx's deadline and never panic on a missing CLI.
	Detect(ctx context.Context) Availability
	// Start spawns the CLI for a new or resumed session. When Start returns,
	// Session.ID is final. Events are delivered to sink, in order, from
	// goroutines the adapter owns, until the session's Done channel closes;
	// the last event is always ProcessExited. A stored session that does not
	// exist is an error wrapping ErrNoSession.
	Start(ctx context.Context, req StartRequest, sink Sink) (Session, error)
	// Transcripts gives access to the runtime's stored sessions; nil when the
	// runtime keeps none.
	Transcripts() Transcripts
}

// Maturity says whether an adapter implements everything it advertises.
type Maturity int

// Maturities.
const (
	// Complete adapters are active when their CLI is installed.
	Complete Maturity = iota
	// Preview adapters are usable but partial.
	Preview
)

// Info is the static description of an adapter.
type Info struct {
	ID          string // stable runtime id, the agent_type value ("claude")
	DisplayName string
	Maturity    Maturity
	// Features are what end-to-end tests prove for this runtime. The
	// registry advertises exactly these.
	Features Features
	// EchoesPrompts: the adapter emits each user prompt as a
	// MessageCompleted with the id its transcript keeps. Otherwise the
	// engine emits the prompt itself (with an id of its own).
	EchoesPrompts bool
	// ClientIDs: a new session may run under an id the client chose (a
	// UUID). Otherwise the CLI chooses every new session's id and Start
	// returns it; a client-chosen id is refused before anything starts.
	ClientIDs bool
	// PermissionModes are the permission_mode values the adapter honours,
	// each doing what the protocol says it does; the registry advertises
	// them and the engine refuses any other before starting a process.
	PermissionModes []rpc.PermissionMode
	// ConfigureModes are the permission modes a running session can be
	// switched to (Features.Configure); the engine refuses any other.
	ConfigureModes []rpc.PermissionMode
	// Attachments are the attachment kinds a turn may carry, each proven
	// by a test where the real CLI's model API receives it; the engine
	// refuses any other before starting anything.
	Attachments []rpc.AttachmentKind
	// CLI names the program the runtime runs, for what lives around the
	// daemon: the service passes its variables on, the bench finds it.
	CLI CLI
}

// CLI is a runtime's program as its surroundings know it.
type CLI struct {
	Command string // its name on PATH ("claude"); "" for a declared agent (config.toml names it)
	BinEnv  string // the variable naming its path ("CLAUDE_BIN"), if it has one
	HomeEnv string // the variable naming the CLI's own home ("CODEX_HOME"), if it reads one
}

// Vars are the environment variables of c that are set, in order.
func (c CLI) Vars() []string {
	var out []string
	for _, v := range []string{c.BinEnv, c.HomeEnv} {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// AcceptsPermissionMode reports whether m may be asked of the adapter; no
// mode (the runtime's own default) always may.
func (i Info) AcceptsPermissionMode(m rpc.PermissionMode) bool {
	return m == "" || slices.Contains(i.PermissionModes, m)
}

// AcceptsAttachment reports whether a turn may carry attachments of kind k.
func (i Info) AcceptsAttachment(k rpc.AttachmentKind) bool {
	return slices.Contains(i.Attachments, k)
}

// Features are the capability flags of the runtime registry.
type Features struct {
	Resume               bool
	InteractiveQuestions bool
	Permissions          bool
	// IDKnownAtStart: session/start returns the final session id, so clients
	// need not wait for a resolution event.
	IDKnownAtStart bool
	// ActivateOnResume: clients should call workspace/session/activate when
	// resuming.
	ActivateOnResume bool
	// Steering: the session implements Steerer (session/steer).
	Steering bool
	// Configure: a running session changes model, effort and permission
	// mode from its next turn on (Turn's fields), as session/configure asks.
	Configure bool
}

// Availability is the result of detecting a CLI.
type Availability struct {
	Installed bool
	Path      string
	Version   string
	// Reason says why the runtime cannot be used, and how to fix it; empty
	// when it can.
	Reason string
	// Login says whether the CLI can answer: logged in, or an API key or
	// provider configured the way it accepts. LoggedOut comes with a
	// Reason; LoginUnknown does not (unknown is never taken for no).
	Login Login
}

// Login is what a runtime's own means (its auth status command, its
// settings and credential files) say of its login, found without a model
// request.
type Login = rpc.LoginState

// Login states.
const (
	LoggedIn     = rpc.LoggedIn
	LoggedOut    = rpc.LoggedOut
	LoginUnknown = rpc.LoginUnknown
)

// Usable reports whether the CLI was found and answered --version.
func (a Availability) Usable() bool { return a.Installed && a.Reason == "" }

// StartRequest is what the engine asks an adapter to start.
type StartRequest struct {
	// SessionID is, with Resume, the stored session to continue. For a new
	// session it is empty (the adapter or its CLI chooses the id, which
	// Session.ID returns) or, only when Info.ClientIDs, the client's id.
	SessionID string
	// Resume continues SessionID's stored history instead of starting fresh.
	Resume bool
	// Dir is the canonical workspace directory: the CLI's working directory.
	Dir            string
	Model          string
	PermissionMode rpc.PermissionMode
	Yolo           bool
	// Effort is the reasoning effort to start with ("" is the CLI's own
	// default); the engine has checked it against the runtime's Offer.
	Effort string
	// ReadDirs are folders besides Dir whose files the agent may read
	// without asking: cdevd's attachments, whose paths prompts name (the
	// iOS app's "[Attached images: …]"). An adapter whose CLI confines
	// reads to its working directory grants them.
	ReadDirs []string
}

// Session is one running CLI process serving one session id.
type Session interface {
	ID() string
	// Send starts a turn. It returns ErrBusy while a turn runs and
	// ErrExited once the process has ended.
	Send(ctx context.Context, turn Turn) error
	// Respond answers a pending prompt; ErrNoRequest if it is not pending.
	Respond(ctx context.Context, requestID string, a Answer) error
	// Interrupt asks the CLI to abandon the running turn. The turn still
	// ends with TurnCompleted or TurnFailed (or ProcessExited).
	Interrupt(ctx context.Context) error
	// Close ends the process group: gracefully, then by force when ctx
	// expires. Safe to call more than once and concurrently; when it
	// returns, the process is gone and ProcessExited has been delivered.
	Close(ctx context.Context) error
	// Done is closed once the process has exited and every event was delivered.
	Done() <-chan struct{}
}

// Turn is one user turn.
type Turn struct {
	Prompt string
	// Model, Effort and PermissionMode are what the session should run
	// with from this turn on ("" keeps what it has): an adapter whose
	// Features.Configure is set switches its CLI through the CLI's own
	// mechanism before the prompt when a value differs from what the CLI
	// has now, and keeps it for later turns. The engine passes the
	// session's whole configuration with every turn, so a value equal to
	// the current one must cost nothing.
	Model          string
	Effort         string
	PermissionMode rpc.PermissionMode
	// Attachments are the turn's images and files, in the client's order,
	// of kinds Info.Attachments lists. An adapter gives images to its CLI
	// in the CLI's own form and writes Text(), which names the files.
	Attachments []Attachment
}

// Decision answers a permission request.
type Decision string

// Decisions.
const (
	Allow       Decision = "allow"
	AllowAlways Decision = "allow_always" // for the rest of the session
	Deny        Decision = "deny"
)

// Answer answers a prompt: a permission Decision, or question Text (an
// option key or free text).
type Answer struct {
	Decision Decision
	Text     string
}

// Transcripts is a runtime's stored sessions, by the canonical directory
// they ran in. How and where they are stored is the runtime's business:
// nothing outside its folder knows a file name, suffix or layout.
type Transcripts interface {
	// List returns every stored session for dir, newest first. The slice
	// may be shared with later calls (a listing of an unchanged folder is
	// kept): callers must not modify it, and copy before sorting.
	List(ctx context.Context, dir string) ([]Summary, error)
	// Messages returns a page of a session's transcript and the total count.
	// With desc, offset counts from the newest message.
	Messages(ctx context.Context, dir, sessionID string, offset, limit int, desc bool) ([]rpc.Message, int, error)
	// Tail follows a transcript from its current end, calling emit for each
	// message appended, until the returned Closer is closed.
	Tail(ctx context.Context, dir, sessionID string, emit func(rpc.Message)) (io.Closer, error)
	// Has reports whether sessionID is stored for dir.
	Has(ctx context.Context, dir, sessionID string) bool
	// Trash moves everything stored for sessionID in dir into bin, where it
	// stays recoverable; ErrNoSession when nothing is stored.
	Trash(ctx context.Context, dir, sessionID string, bin Bin) error
	// Watch calls changed with a session's id whenever something stored for
	// dir is written, sessions run outside cdevd included, until the Closer
	// is closed. Calls may come in bursts (the caller debounces) and from
	// several goroutines. A refused watch is an error wrapping
	// *fswatch.Error.
	Watch(dir string, changed func(sessionID string)) (io.Closer, error)
}

// Bin takes files out of the way without destroying them.
type Bin interface {
	// Put moves the file at path into the bin, never replacing a file
	// already there.
	Put(path string) error
}

// Summary describes one stored session.
type Summary struct {
	SessionID    string
	Summary      string
	MessageCount int
	LastUpdated  string // RFC 3339
	Branch       string
}

// Errors adapters return; shared code checks them with errors.Is.
var (
	ErrBusy      = errors.New("a turn is already running")
	ErrExited    = errors.New("the runtime's process has exited")
	ErrNoRequest = errors.New("no such pending request")
	ErrNoSession = errors.New("no stored session with that id")
)
