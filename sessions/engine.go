package sessions

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

// Watcher is where a client's events go: one per connection.
type Watcher interface {
	// ClientID names the client (for resolved_by).
	ClientID() string
	// Deliver enqueues a live event without blocking; a full queue is the
	// watcher's problem (the transport disconnects it), never the session's.
	Deliver(ev *Event)
	// DeliverWait enqueues a replayed event, waiting for room: a replay
	// goes at the client's pace, and blocks nobody else while it waits.
	DeliverWait(ctx context.Context, ev *Event) error
	// Cut disconnects a client that fell too far behind for a replay to
	// catch up; it reconnects with since_seq and learns of the gap.
	Cut(reason string)
}

// Router is what the engine needs of the runtime registry: the adapter
// that serves a method for an agent_type (or the wire error saying why
// none does), and the runtimes registered. The registry implements it;
// the engine builds its own wire errors with package rpc.
type Router interface {
	Route(ctx context.Context, method, agentType string) (runtimes.Adapter, error)
	IDs() []string
	Adapter(id string) (runtimes.Adapter, bool)
}

// Config configures an Engine.
type Config struct {
	Registry   Router
	Workspaces *workspaces.Store
	// Epoch identifies this server run; seqs are only comparable within it.
	Epoch string
	// TrashDir receives deleted transcripts.
	TrashDir string
	// Watcher watches subscribed workspaces' transcript directories; nil
	// uses the process's shared one (one inotify instance for everything).
	Watcher *fswatch.Watcher

	// ReplayEvents and ReplayAge: each session keeps at least this many
	// events or this much time of them (10,000 and 5 minutes by default),
	// and never more than ReplayMax (100,000) nor ReplayBytes of frames.
	ReplayEvents int
	ReplayAge    time.Duration
	ReplayMax    int
	// ReplayBytes bounds the frames each session keeps for replay, whatever
	// the count and age say (DefaultReplayBytes when zero).
	ReplayBytes int

	// IdleTimeout ends a session's process after this long without a turn
	// (the session resumes on the next send). Zero means 30 minutes;
	// negative disables it.
	IdleTimeout time.Duration
	// MaxProcesses caps live processes per runtime (default 8); starting one
	// more ends the least recently active idle one first.
	MaxProcesses int
	// StopTimeout bounds a graceful stop before the process group is killed.
	StopTimeout time.Duration

	Logger *zap.Logger
}

// Engine runs every session of the daemon.
type Engine struct {
	cfg Config
	log *zap.Logger
	reg Router
	ws  *workspaces.Store
	// watcher is shared by every workspace's notifier.
	watcher *fswatch.Watcher

	// Lock order: mu before any session's mu; subMu is a leaf taken by
	// sessions while they hold their own lock, so it guards nothing else.
	mu       sync.Mutex
	sessions map[string]*session
	active   map[string]activeRef           // workspace id → current session
	dirs     map[string]map[string]struct{} // workspace id → directories sessions ran in
	closed   bool

	subMu     sync.Mutex
	subs      map[string]map[Watcher]struct{} // workspace id → subscribers
	notifiers map[string]*notifier            // workspace id → transcript watcher, while subscribed

	ctx    context.Context // ends with Close: background work stops
	cancel context.CancelFunc
	wg     sync.WaitGroup // replays and other background work
}

type activeRef struct{ sessionID, agentType string }

// New creates an Engine.
func New(cfg Config) *Engine {
	if cfg.ReplayEvents <= 0 {
		cfg.ReplayEvents = 10_000
	}
	if cfg.ReplayAge <= 0 {
		cfg.ReplayAge = 5 * time.Minute
	}
	if cfg.ReplayMax < cfg.ReplayEvents {
		cfg.ReplayMax = max(100_000, cfg.ReplayEvents)
	}
	if cfg.ReplayBytes <= 0 {
		cfg.ReplayBytes = DefaultReplayBytes
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 30 * time.Minute
	}
	if cfg.MaxProcesses <= 0 {
		cfg.MaxProcesses = 8
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Epoch == "" {
		cfg.Epoch = uuid.NewString()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Engine{cfg: cfg, log: cfg.Logger, reg: cfg.Registry, ws: cfg.Workspaces, ctx: ctx, cancel: cancel,
		watcher: fswatch.Or(cfg.Watcher), sessions: map[string]*session{}, subs: map[string]map[Watcher]struct{}{},
		notifiers: map[string]*notifier{}, dirs: map[string]map[string]struct{}{},
		active: map[string]activeRef{}}
}

// Epoch is this server run's id.
func (e *Engine) Epoch() string { return e.cfg.Epoch }

// Running counts sessions whose process is alive.
func (e *Engine) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, s := range e.sessions {
		if s.isRunning() {
			n++
		}
	}
	return n
}

// StartOptions are session/start's params after validation.
type StartOptions struct {
	WorkspaceID    string
	Cwd            string // inside the workspace; "" is its root
	AgentType      string
	SessionID      string
	Resume         bool
	Model          string
	PermissionMode rpc.PermissionMode
	Yolo           bool
}

// Start starts a new session, resumes a historical one, or returns the live
// one with that id. The watcher (the calling client) is attached to it.
func (e *Engine) Start(ctx context.Context, w Watcher, o StartOptions) (rpc.SessionStartResult, error) {
	ws, err := e.ws.Get(o.WorkspaceID)
	if err != nil {
		return rpc.SessionStartResult{}, err
	}
	adapter, err := e.reg.Route(ctx, rpc.MethodSessionStart, o.AgentType)
	if err != nil {
		return rpc.SessionStartResult{}, err
	}
	info := adapter.Info()
	agent := info.ID
	// Refused here, before any process starts: a mode the runtime cannot
	// honour is the caller's mistake (-32602), not the runtime failing.
	if !info.AcceptsPermissionMode(o.PermissionMode) {
		return rpc.SessionStartResult{}, rpc.UnsupportedPermissionMode(o.PermissionMode, agent, info.PermissionModes)
	}
	dir := ws.Path
	if o.Cwd != "" {
		if dir, err = ws.Resolve(o.Cwd); err != nil {
			return rpc.SessionStartResult{}, err
		}
		// Checked here, not left to the process start, whose failure
		// would read as the runtime's (-32603).
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return rpc.SessionStartResult{}, rpc.InvalidPath(dir, "not a directory")
		}
	}
	if o.SessionID != "" {
		if err := validID(o.SessionID); err != nil {
			return rpc.SessionStartResult{}, err
		}
		if s := e.lookup(o.SessionID); s != nil && !s.external {
			if s.workspaceID != ws.ID || s.agentType != agent {
				return rpc.SessionStartResult{}, rpc.InvalidParams("session_id",
					fmt.Sprintf("session runs in workspace %s with %s", s.workspaceID, s.agentType))
			}
			if st := s.status(); st != rpc.StatusStopped && st != rpc.StatusError {
				s.watch(w, nil) // live only: nothing to replay
				return rpc.SessionStartResult{SessionID: s.id, WorkspaceID: ws.ID, AgentType: agent,
					Status: rpc.StartExisting, Source: "live"}, nil
			}
			// Stopped (or failed) in this daemon: start it again, with the
			// caller attached first so that it sees the session_start.
			watched := s.isWatching(w)
			s.watch(w, nil)
			if err := s.restart(ctx); err != nil {
				if !watched {
					s.unwatch(w)
				}
				return rpc.SessionStartResult{}, err
			}
			return rpc.SessionStartResult{SessionID: s.id, WorkspaceID: ws.ID, AgentType: agent,
				Status: rpc.StartStarted, Source: "resumed"}, nil
		}
		if o.Cwd == "" {
			// Resume where the session ran, which may be below the root.
			if found, ok := e.findTranscript(ctx, adapter, ws, o.SessionID); ok {
				dir = found
			}
		}
		if !o.Resume && !e.hasTranscript(ctx, adapter, dir, o.SessionID) {
			// A client-chosen id for a brand new session.
			if !info.ClientIDs {
				return rpc.SessionStartResult{}, rpc.RuntimeChoosesIDs(o.SessionID, agent)
			}
			if _, err := uuid.Parse(o.SessionID); err != nil {
				return rpc.SessionStartResult{}, rpc.SessionNotFound(o.SessionID)
			}
		} else {
			o.Resume = true
		}
	} else if o.Resume {
		return rpc.SessionStartResult{}, rpc.InvalidParams("resume_session_id", "required")
	}
	// A new session without an id gets the one the adapter (or its CLI)
	// chooses, known once its process has started.
	if o.Resume && !e.hasTranscript(ctx, adapter, dir, o.SessionID) {
		return rpc.SessionStartResult{}, rpc.SessionNotFound(o.SessionID)
	}

	s := e.newSession(o.SessionID, ws, adapter, o)
	s.dir = dir
	// The session is visible once registered; holding its operation lock
	// until its process is recorded makes a send or stop that finds it
	// meanwhile wait, rather than start a second process or miss this one.
	// A session whose id the runtime chooses is registered once it has
	// one: nothing can find it before.
	s.opMu.Lock()
	defer s.opMu.Unlock()
	registered := s.id != ""
	if registered {
		if err := e.register(s, w); err != nil {
			return rpc.SessionStartResult{}, err
		}
	}
	if err := s.ensureProcess(ctx, rpc.MethodSessionStart); err != nil {
		e.forget(s)
		return rpc.SessionStartResult{}, err
	}
	if !registered {
		if err := e.register(s, w); err != nil {
			s.discard(ctx)
			return rpc.SessionStartResult{}, err
		}
	}
	e.rememberDir(ws.ID, dir)
	s.watch(w, nil)
	source := "new"
	if o.Resume {
		source = "resumed"
	}
	s.emitLifecycle(rpc.EventSessionStart, func(h rpc.EventHeader) any {
		return rpc.SessionStartEvent{EventHeader: h, Source: source}
	})
	return rpc.SessionStartResult{SessionID: s.id, WorkspaceID: ws.ID, AgentType: agent,
		Status: rpc.StartStarted, Source: source}, nil
}

// rememberDir records a directory below a workspace's root that a session
// ran in: the runtime keeps that session's transcript by that directory.
func (e *Engine) rememberDir(workspaceID, dir string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dirs[workspaceID] == nil {
		e.dirs[workspaceID] = map[string]struct{}{}
	}
	e.dirs[workspaceID][dir] = struct{}{}
}

// transcriptDirs are the directories whose transcripts belong to ws: its
// root first, then those sessions ran in below it (known to this run of
// the daemon).
func (e *Engine) transcriptDirs(ws workspaces.Workspace) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	dirs := []string{ws.Path}
	for d := range e.dirs[ws.ID] {
		if d != ws.Path {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs[1:])
	return dirs
}

// findTranscript is the directory in which ws keeps session id's transcript.
func (e *Engine) findTranscript(ctx context.Context, a runtimes.Adapter, ws workspaces.Workspace, id string) (string, bool) {
	for _, d := range e.transcriptDirs(ws) {
		if e.hasTranscript(ctx, a, d, id) {
			return d, true
		}
	}
	return "", false
}

func (e *Engine) hasTranscript(ctx context.Context, a runtimes.Adapter, dir, id string) bool {
	t := a.Transcripts()
	return t != nil && t.Has(ctx, dir, id)
}

func validID(id string) error {
	if err := runtimes.ValidSessionID(id); err != nil {
		return rpc.InvalidParams("session_id", err.Error())
	}
	return nil
}

func (e *Engine) register(s *session, caller Watcher) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return rpc.Errorf(rpc.CodeInternalError, nil, "server is shutting down")
	}
	old, ok := e.sessions[s.id]
	if ok && !old.external {
		e.mu.Unlock()
		return rpc.SessionBusy(s.id, "session is already running")
	}
	e.sessions[s.id] = s
	e.mu.Unlock()
	if ok {
		// The session was followed through its transcript; now cdevd runs
		// it, with seqs from 1 again. Its watchers reconnect, are told of
		// the gap, and watch the run.
		old.retire(caller)
	}
	return nil
}

func (e *Engine) forget(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
}

func (e *Engine) lookup(id string) *session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[id]
}

// session returns a live (cdevd-run) session or SessionNotFound.
func (e *Engine) session(id string) (*session, error) {
	if id == "" {
		return nil, rpc.InvalidParams("session_id", "required")
	}
	s := e.lookup(id)
	if s == nil || s.external {
		return nil, rpc.SessionNotFound(id)
	}
	return s, nil
}

// checkAgent enforces that a routed call's agent_type matches the session's.
func (e *Engine) checkAgent(ctx context.Context, method, agentType string, s *session) error {
	if agentType == "" || agentType == s.agentType {
		return nil
	}
	if _, err := e.reg.Route(ctx, method, agentType); err != nil {
		return err
	}
	return rpc.InvalidParams("agent_type", fmt.Sprintf("session %s runs %s, not %s", s.id, s.agentType, agentType))
}

// SendOptions are session/send's params after validation.
type SendOptions struct {
	Prompt      string
	SessionID   string
	WorkspaceID string
	Mode        rpc.SendMode
	AgentType   string
	Options     StartOptions // for a session created by this send
}

// Send sends a user turn, creating or resuming the session when needed.
func (e *Engine) Send(ctx context.Context, w Watcher, o SendOptions) (rpc.SessionSendResult, error) {
	if o.Prompt == "" {
		return rpc.SessionSendResult{}, rpc.InvalidParams("prompt", "required")
	}
	if o.AgentType != "" {
		// Routed here, so that errors name this method even when the send
		// goes on to start a session.
		if _, err := e.reg.Route(ctx, rpc.MethodSessionSend, o.AgentType); err != nil {
			return rpc.SessionSendResult{}, err
		}
	}
	auto := false
	s := (*session)(nil)
	switch {
	case o.SessionID != "":
		s = e.lookup(o.SessionID)
		if s == nil || s.external {
			// A historical session: resume it in its workspace, the one
			// given or the one it was activated in.
			if o.WorkspaceID == "" {
				o.WorkspaceID = e.activatedIn(o.SessionID)
			}
			if o.WorkspaceID == "" {
				return rpc.SessionSendResult{}, rpc.SessionNotFound(o.SessionID)
			}
			st := o.Options
			st.WorkspaceID, st.AgentType, st.SessionID, st.Resume = o.WorkspaceID, o.AgentType, o.SessionID, true
			if _, err := e.Start(ctx, w, st); err != nil {
				return rpc.SessionSendResult{}, err
			}
			s = e.lookup(o.SessionID)
		}
	case o.WorkspaceID != "":
		if o.Mode == rpc.SendContinue || o.Mode == "" {
			s = e.current(o.WorkspaceID, o.AgentType)
		}
		if s == nil {
			st := o.Options
			st.WorkspaceID, st.AgentType = o.WorkspaceID, o.AgentType
			if o.Mode == rpc.SendContinue || o.Mode == "" {
				if ref, ok := e.activeRef(o.WorkspaceID); ok && (o.AgentType == "" || o.AgentType == ref.agentType) {
					st.SessionID, st.AgentType = ref.sessionID, ref.agentType
				}
			}
			res, err := e.Start(ctx, w, st)
			if err != nil {
				return rpc.SessionSendResult{}, err
			}
			auto = res.Source == "new"
			s = e.lookup(res.SessionID)
		}
	default:
		return rpc.SessionSendResult{}, rpc.InvalidParams("session_id", "session_id or workspace_id is required")
	}
	if s == nil {
		return rpc.SessionSendResult{}, rpc.SessionNotFound(o.SessionID)
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionSend, o.AgentType, s); err != nil {
		return rpc.SessionSendResult{}, err
	}
	// The sender watches from before its turn begins, so it sees all of it.
	watched := s.isWatching(w)
	s.watch(w, nil)
	if err := s.send(ctx, o.Prompt); err != nil {
		if !watched {
			s.unwatch(w)
		}
		return rpc.SessionSendResult{}, err
	}
	return rpc.SessionSendResult{Status: "sent", SessionID: s.id, AgentType: s.agentType,
		WorkspaceID: s.workspaceID, AutoCreated: auto}, nil
}

// current is the workspace's most recently active cdevd session.
func (e *Engine) current(workspaceID, agentType string) *session {
	if ref, ok := e.activeRef(workspaceID); ok {
		if s := e.lookup(ref.sessionID); s != nil && !s.external && s.workspaceID == workspaceID &&
			(agentType == "" || s.agentType == agentType) {
			return s
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var best *session
	for _, s := range e.sessions {
		if s.external || s.workspaceID != workspaceID || (agentType != "" && s.agentType != agentType) {
			continue
		}
		if best == nil || s.lastActiveTime().After(best.lastActiveTime()) {
			best = s
		}
	}
	return best
}

// activatedIn is the workspace in which a session was activated, if any.
func (e *Engine) activatedIn(sessionID string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ws, r := range e.active {
		if r.sessionID == sessionID {
			return ws
		}
	}
	return ""
}

func (e *Engine) activeRef(workspaceID string) (activeRef, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.active[workspaceID]
	return r, ok
}

// Stop interrupts a session's turn and ends its process group.
func (e *Engine) Stop(ctx context.Context, id, agentType string) (rpc.SessionStopResult, error) {
	s, err := e.session(id)
	if err != nil {
		return rpc.SessionStopResult{}, err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionStop, agentType, s); err != nil {
		return rpc.SessionStopResult{}, err
	}
	s.stop(ctx, "stopped")
	return rpc.SessionStopResult{Success: true, Status: "stopped", SessionID: s.id, AgentType: s.agentType}, nil
}

// Respond answers a pending prompt.
func (e *Engine) Respond(ctx context.Context, w Watcher, id, agentType string, kind rpc.RespondType, requestID, response string) error {
	s, err := e.session(id)
	if err != nil {
		return err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionRespond, agentType, s); err != nil {
		return err
	}
	return s.respond(ctx, w.ClientID(), kind, requestID, response, false)
}

// Input answers the pending prompt with a key or text.
func (e *Engine) Input(ctx context.Context, w Watcher, id, agentType, input string) error {
	s, err := e.session(id)
	if err != nil {
		return err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionInput, agentType, s); err != nil {
		return err
	}
	if isEscape(input) && s.interruptible() {
		// Escape with nothing to answer does what it does in the CLI's own
		// terminal: it interrupts the running turn. The turn still ends
		// with its one terminal event.
		return s.interrupt(ctx)
	}
	return s.respond(ctx, w.ClientID(), "", "", input, true)
}

func isEscape(input string) bool {
	switch strings.ToLower(strings.TrimSpace(input)) {
	case "escape", "esc", "ctrl+c", "ctrl-c":
		return true
	}
	return false
}

// State is a session's exact state.
func (e *Engine) State(id string) (rpc.SessionStateResult, error) {
	s, err := e.session(id)
	if err != nil {
		return rpc.SessionStateResult{}, err
	}
	return s.state(), nil
}

// gapSeq is beyond any seq: watching since it always reports a gap.
var gapSeq int64 = math.MaxInt64

// Watch attaches w to a session's events. With sinceSeq, what w missed
// is replayed by the returned function, which the caller runs once the
// reply is on its way (so the reply comes first); it returns at once and
// the replay goes on at the client's pace. A session cdevd does not run is
// followed through its transcript.
func (e *Engine) Watch(ctx context.Context, w Watcher, workspaceID, id, agentType string, sinceSeq *int64, epoch string) (rpc.WatchResult, func(), error) {
	ws, err := e.ws.Get(workspaceID)
	if err != nil {
		return rpc.WatchResult{}, nil, err
	}
	if err := validID(id); err != nil {
		return rpc.WatchResult{}, nil, err
	}
	s := e.lookup(id)
	if s == nil {
		if s, err = e.tailExternal(ctx, ws, id, agentType); err != nil {
			return rpc.WatchResult{}, nil, err
		}
	}
	if s.workspaceID != ws.ID {
		return rpc.WatchResult{}, nil, rpc.SessionNotFound(id)
	}
	if sinceSeq != nil && epoch != "" && epoch != e.cfg.Epoch {
		// Seqs of another run of the daemon say nothing about this one.
		sinceSeq = &gapSeq
	}
	r := s.watch(w, sinceSeq)
	return rpc.WatchResult{Status: "watching", Watching: true, WorkspaceID: ws.ID, SessionID: id,
		Epoch: e.cfg.Epoch, LastSeq: r.last, Replayed: r.replayed, Gap: r.gap}, r.start, nil
}

// Unwatch detaches w from one session, or from all when id is empty. It
// returns the workspace of the session left, if any.
func (e *Engine) Unwatch(w Watcher, id string) string {
	e.mu.Lock()
	var list []*session
	for _, s := range e.sessions {
		if id == "" || s.id == id {
			list = append(list, s)
		}
	}
	e.mu.Unlock()
	wsID := ""
	for _, s := range list {
		if s.unwatch(w) {
			wsID = s.workspaceID
		}
	}
	return wsID
}

// Detach removes a departing client everywhere.
func (e *Engine) Detach(w Watcher) {
	e.Unwatch(w, "")
	e.subMu.Lock()
	var ids []string
	for id, subs := range e.subs {
		if _, ok := subs[w]; ok {
			ids = append(ids, id)
		}
	}
	e.subMu.Unlock()
	for _, id := range ids {
		e.unsubscribe(w, id)
	}
}

// RemoveWorkspace forgets a workspace and revokes it: from now on nothing
// runs in its directory. Its running sessions are stopped (session_stopped,
// reason "workspace_removed"), a later send to any of them is refused with
// workspace not found, and its subscribers are dropped. Transcripts are
// untouched, and the workspace can be added again.
func (e *Engine) RemoveWorkspace(ctx context.Context, id string) error {
	// Removed first: ensureProcess checks the workspace under the session's
	// opMu, which stop takes too, so a start racing this one either fails
	// or is stopped below.
	if err := e.ws.Remove(id); err != nil {
		return err
	}
	e.mu.Lock()
	var running []*session
	for _, s := range e.sessions {
		if s.workspaceID == id && !s.external {
			running = append(running, s)
		}
	}
	delete(e.active, id)
	e.mu.Unlock()
	for _, s := range running {
		s.stop(ctx, "workspace_removed")
	}
	e.subMu.Lock()
	var subs []Watcher
	for w := range e.subs[id] {
		subs = append(subs, w)
	}
	e.subMu.Unlock()
	for _, w := range subs {
		e.unsubscribe(w, id)
	}
	return nil
}

// Subscribe adds w to a workspace's lifecycle events and returns w's
// subscriptions. An empty id subscribes to every workspace. When a
// workspace's transcripts cannot be watched (the system refuses: a kernel
// limit) the call fails with the reason and subscribes w to nothing new: a
// success would promise notices that never come.
func (e *Engine) Subscribe(w Watcher, workspaceID string) ([]string, error) {
	ids := []string{workspaceID}
	if workspaceID == "" {
		ids = ids[:0]
		for _, ws := range e.ws.List() {
			ids = append(ids, ws.ID)
		}
	} else if _, err := e.ws.Get(workspaceID); err != nil {
		return nil, err
	}
	var added []string
	for _, id := range ids {
		e.subMu.Lock()
		if e.subs[id] == nil {
			e.subs[id] = map[Watcher]struct{}{}
		}
		if _, ok := e.subs[id][w]; !ok {
			added = append(added, id)
		}
		e.subs[id][w] = struct{}{}
		need := e.notifiers[id] == nil
		e.subMu.Unlock()
		if !need {
			continue
		}
		// Started outside subMu: it does file system work. A second
		// subscriber racing here may start one too; keep the first.
		n, err := e.startNotifier(id)
		if err != nil {
			for _, id := range added {
				e.unsubscribe(w, id)
			}
			e.log.Warn("workspace subscription refused", zap.String("workspace_id", id), zap.Error(err))
			return nil, watchRefused(err, "workspace_id", id)
		}
		if n != nil {
			e.subMu.Lock()
			if e.notifiers[id] == nil && len(e.subs[id]) > 0 {
				e.notifiers[id], n = n, nil
			}
			e.subMu.Unlock()
			if n != nil {
				n.stop()
			}
		}
	}
	return e.Subscriptions(w), nil
}

// watchRefused is the error a client gets when the system refuses a watch:
// the contract's InternalError (the server cannot do it now), with the
// reason (which kernel limit, how to raise it) in data.
func watchRefused(err error, key, id string) error {
	reason := err.Error()
	var ferr *fswatch.Error
	if errors.As(err, &ferr) {
		reason = ferr.Reason()
	}
	return &rpc.Error{Code: rpc.CodeInternalError, Message: "cannot watch transcripts: " + reason,
		Data: map[string]any{key: id, "reason": reason}}
}

// Unsubscribe removes w from a workspace's lifecycle events.
func (e *Engine) Unsubscribe(w Watcher, workspaceID string) ([]string, error) {
	if _, err := e.ws.Get(workspaceID); err != nil {
		return nil, err
	}
	e.unsubscribe(w, workspaceID)
	return e.Subscriptions(w), nil
}

// unsubscribe removes w; the workspace's transcript watcher ends with its
// last subscriber.
func (e *Engine) unsubscribe(w Watcher, workspaceID string) {
	e.subMu.Lock()
	delete(e.subs[workspaceID], w)
	var n *notifier
	if len(e.subs[workspaceID]) == 0 {
		n = e.notifiers[workspaceID]
		delete(e.notifiers, workspaceID)
	}
	e.subMu.Unlock()
	if n != nil {
		n.stop()
	}
}

// Subscriptions lists w's subscribed workspaces, sorted.
func (e *Engine) Subscriptions(w Watcher) []string {
	e.subMu.Lock()
	defer e.subMu.Unlock()
	ids := []string{}
	for id, subs := range e.subs {
		if _, ok := subs[w]; ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// publishWorkspace sends a lifecycle event to the workspace's subscribers
// that do not already get it by watching the session.
func (e *Engine) publishWorkspace(ev *Event, watching map[Watcher]struct{}) {
	e.subMu.Lock()
	defer e.subMu.Unlock()
	for w := range e.subs[ev.WorkspaceID] {
		if _, dup := watching[w]; !dup {
			w.Deliver(ev)
		}
	}
}

// Activate marks a session as the workspace's current one.
func (e *Engine) Activate(workspaceID, id, agentType string) error {
	ws, err := e.ws.Get(workspaceID)
	if err != nil {
		return err
	}
	if err := validID(id); err != nil {
		return err
	}
	agent := agentType
	if s := e.lookup(id); s != nil {
		if s.workspaceID != ws.ID {
			return rpc.SessionNotFound(id)
		}
		agent = s.agentType
	} else {
		a, err := e.reg.Route(context.Background(), rpc.MethodActivate, agentType)
		if err != nil {
			return err
		}
		if _, ok := e.findTranscript(context.Background(), a, ws, id); !ok {
			return rpc.SessionNotFound(id)
		}
		agent = a.Info().ID
	}
	e.mu.Lock()
	e.active[ws.ID] = activeRef{id, agent}
	e.mu.Unlock()
	return nil
}

// WorkspaceSessions lists the sessions cdevd runs in a workspace.
func (e *Engine) WorkspaceSessions(workspaceID string) []rpc.WorkspaceSession {
	e.mu.Lock()
	defer e.mu.Unlock()
	var list []rpc.WorkspaceSession
	for _, s := range e.sessions {
		if s.workspaceID == workspaceID && !s.external {
			list = append(list, rpc.WorkspaceSession{ID: s.id, WorkspaceID: workspaceID,
				AgentType: s.agentType, Status: s.status()})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	return list
}

// ActiveSession is a workspace's current session, if any.
func (e *Engine) ActiveSession(workspaceID string) (id, agentType string) {
	r, _ := e.activeRef(workspaceID)
	return r.sessionID, r.agentType
}

// track counts a background goroutine about to start, unless the engine is
// closing; Close waits for every one counted.
func (e *Engine) track() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.wg.Add(1)
	return true
}

// Close ends every session's process and tail. The engine refuses new
// sessions afterwards.
func (e *Engine) Close(ctx context.Context) {
	e.mu.Lock()
	e.closed = true
	list := make([]*session, 0, len(e.sessions))
	for _, s := range e.sessions {
		list = append(list, s)
	}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.external {
				s.closeTail()
			} else {
				s.stop(ctx, "server shutting down")
			}
		}()
	}
	wg.Wait()
	e.cancel()
	e.subMu.Lock()
	notifiers := e.notifiers
	e.notifiers = map[string]*notifier{}
	e.subMu.Unlock()
	for _, n := range notifiers {
		n.stop()
	}
	e.wg.Wait()
}
