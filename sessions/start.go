package sessions

// session/start: the plan (workspace, runtime, mode, directory, what the
// id means), then attaching to a session of this daemon or launching one.

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

// startPlan is what session/start will do, worked out before anything
// runs: every mistake of the caller's is refused before a process starts.
type startPlan struct {
	ws      workspaces.Workspace
	adapter runtimes.Adapter
	info    runtimes.Info
	dir     string // the CLI's working directory
	opts    StartOptions
	// live is this daemon's session with the id asked for: the caller is
	// attached to it (and a stopped one started again) instead.
	live *session
}

// Start starts a new session, resumes a historical one, or returns the live
// one with that id. The watcher (the calling client) is attached to it.
func (e *Engine) Start(ctx context.Context, w Watcher, o StartOptions) (rpc.SessionStartResult, error) {
	p, err := e.planStart(ctx, o)
	if err != nil {
		return rpc.SessionStartResult{}, err
	}
	if p.live != nil {
		return e.reuse(ctx, w, p)
	}
	return e.launch(ctx, w, p)
}

// planStart takes session/start's decisions in order: the workspace, the
// runtime (routed by agent_type) and whether it accepts the permission
// mode, the directory, and what the session id means for that runtime.
func (e *Engine) planStart(ctx context.Context, o StartOptions) (*startPlan, error) {
	ws, err := e.ws.Get(o.WorkspaceID)
	if err != nil {
		return nil, err
	}
	adapter, err := e.reg.Route(ctx, rpc.MethodSessionStart, o.AgentType)
	if err != nil {
		return nil, err
	}
	p := &startPlan{ws: ws, adapter: adapter, info: adapter.Info(), dir: ws.Path, opts: o}
	// Refused here, before any process starts: a mode the runtime cannot
	// honour is the caller's mistake (-32602), not the runtime failing.
	if !p.info.AcceptsPermissionMode(o.PermissionMode) {
		return nil, rpc.UnsupportedPermissionMode(o.PermissionMode, p.info.ID, p.info.PermissionModes)
	}
	if err := checkAttachments(p.info, o.AttachmentKinds); err != nil {
		return nil, err
	}
	if err := e.checkOffer(p.info.ID, Configuration{Model: o.Model, Effort: o.Effort}, ""); err != nil {
		return nil, err
	}
	if err := p.resolveDir(); err != nil {
		return nil, err
	}
	if err := e.planID(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// resolveDir is the cwd asked for, through the workspace's path boundary.
func (p *startPlan) resolveDir() error {
	if p.opts.Cwd == "" {
		return nil
	}
	dir, err := p.ws.Resolve(p.opts.Cwd)
	if err != nil {
		return err
	}
	// Checked here, not left to the process start, whose failure would
	// read as the runtime's (-32603).
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return rpc.InvalidPath(dir, "not a directory")
	}
	p.dir = dir
	return nil
}

// planID works out what the session id asks for: none (the runtime, or
// its CLI, chooses one once its process runs), a session of this daemon,
// a stored session to resume (where it ran, unless a cwd was given), or a
// brand new session under the client's id, which only a runtime with
// Info.ClientIDs takes.
func (e *Engine) planID(ctx context.Context, p *startPlan) error {
	o := &p.opts
	if o.SessionID == "" {
		if o.Resume {
			return rpc.InvalidParams("resume_session_id", "required")
		}
		return nil
	}
	if err := validID(o.SessionID); err != nil {
		return err
	}
	if s := e.lookup(o.SessionID); s != nil && !s.external {
		if s.workspaceID != p.ws.ID || s.agentType != p.info.ID {
			return rpc.InvalidParams("session_id",
				fmt.Sprintf("session runs in workspace %s with %s", s.workspaceID, s.agentType))
		}
		p.live = s
		return nil
	}
	if o.Cwd == "" {
		// Resume where the session ran, which may be below the root.
		if found, ok := e.findTranscript(ctx, p.adapter, p.ws, o.SessionID); ok {
			p.dir = found
		}
	}
	switch stored := e.hasTranscript(ctx, p.adapter, p.dir, o.SessionID); {
	case stored:
		o.Resume = true
	case o.Resume:
		return rpc.SessionNotFound(o.SessionID)
	case !p.info.ClientIDs:
		return rpc.RuntimeChoosesIDs(o.SessionID, p.info.ID)
	default:
		if _, err := uuid.Parse(o.SessionID); err != nil {
			return rpc.SessionNotFound(o.SessionID)
		}
	}
	return nil
}

// reuse attaches the caller to this daemon's session with the id: a
// running one as it is, a stopped (or failed) one started again, with the
// caller attached first so that it sees the session_start.
func (e *Engine) reuse(ctx context.Context, w Watcher, p *startPlan) (rpc.SessionStartResult, error) {
	s := p.live
	if st := s.status(); st != rpc.StatusStopped && st != rpc.StatusError {
		s.watch(w, nil) // live only: nothing to replay
		return rpc.SessionStartResult{SessionID: s.id, WorkspaceID: p.ws.ID, AgentType: p.info.ID,
			Status: rpc.StartExisting, Source: "live"}, nil
	}
	watched := s.isWatching(w)
	s.watch(w, nil)
	if err := s.restart(ctx); err != nil {
		if !watched {
			s.unwatch(w)
		}
		return rpc.SessionStartResult{}, err
	}
	return rpc.SessionStartResult{SessionID: s.id, WorkspaceID: p.ws.ID, AgentType: p.info.ID,
		Status: rpc.StartStarted, Source: "resumed"}, nil
}

// launch starts the planned session's process and makes it visible.
func (e *Engine) launch(ctx context.Context, w Watcher, p *startPlan) (rpc.SessionStartResult, error) {
	s := e.newSession(p.opts.SessionID, p.ws, p.adapter, p.opts)
	s.dir = p.dir
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
	e.rememberDir(p.ws.ID, p.dir)
	s.watch(w, nil)
	source := "new"
	if p.opts.Resume {
		source = "resumed"
	}
	s.emitLifecycle(rpc.EventSessionStart, func(h rpc.EventHeader) any {
		return rpc.SessionStartEvent{EventHeader: h, Source: source}
	})
	return rpc.SessionStartResult{SessionID: s.id, WorkspaceID: p.ws.ID, AgentType: p.info.ID,
		Status: rpc.StartStarted, Source: source}, nil
}

// StartOptions are session/start's params after validation.
type StartOptions struct {
	WorkspaceID    string
	Cwd            string // inside the workspace; "" is its root
	AgentType      string
	SessionID      string
	Resume         bool
	Model          string
	Effort         string
	PermissionMode rpc.PermissionMode
	Yolo           bool
	// AttachmentKinds are those of the first turn's attachments: a runtime
	// that cannot take one is refused before its process starts.
	AttachmentKinds []rpc.AttachmentKind
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
