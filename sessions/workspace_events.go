package sessions

// Workspace events: news about a workspace's files and repository
// (git_status_changed, git_operation_completed, file_changed), for its
// subscribers. They belong to no session, so they carry no session_id and
// are not kept for replay. The iOS app drops an event whose agent_type is
// not a runtime it has open, so each subscriber gets the runtime it uses
// in that workspace.

import (
	"io"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// WorkspaceWatch starts watching a subscribed workspace's folder (for the
// workspace events); the engine closes what it returns when the workspace's
// last subscriber leaves.
type WorkspaceWatch func(workspaceID, dir string) (io.Closer, error)

// SetWorkspaceWatch installs the watch started with each workspace's first
// subscriber. The server sets it: it knows what the events carry.
func (e *Engine) SetWorkspaceWatch(f WorkspaceWatch) { e.workspaceWatch.Store(&f) }

// NotifyWorkspace sends one workspace event to the workspace's subscribers;
// params builds its payload for a subscriber's agent_type. It never blocks
// (Deliver does not).
func (e *Engine) NotifyWorkspace(workspaceID, eventType string, params func(agentType string) any) {
	e.subMu.Lock()
	subs := make([]Watcher, 0, len(e.subs[workspaceID]))
	for w := range e.subs[workspaceID] {
		subs = append(subs, w)
	}
	e.subMu.Unlock()
	if len(subs) == 0 {
		return
	}
	frames := map[string]*Event{} // by agent_type: most subscribers share one
	for _, w := range subs {
		agent := e.agentFor(w, workspaceID)
		ev := frames[agent]
		if ev == nil {
			ev = &Event{Type: eventType, WorkspaceID: workspaceID, At: time.Now(),
				Frame: notification(rpc.EventPrefix+eventType, params(agent))}
			frames[agent] = ev
		}
		w.Deliver(ev)
	}
}

// HasSubscribers reports whether anyone hears of the workspace, so that a
// watcher can spare work nobody would receive.
func (e *Engine) HasSubscribers(workspaceID string) bool {
	e.subMu.Lock()
	defer e.subMu.Unlock()
	return len(e.subs[workspaceID]) > 0
}

// agentFor is the runtime w uses in the workspace: the one it says it
// uses, else that of a session of the workspace w watches (the active one
// first), else that of the workspace's active session, else the default
// runtime. Locks are taken one at a time
// (Engine.mu, then each session's mu), never under subMu.
func (e *Engine) agentFor(w Watcher, workspaceID string) string {
	// A client that says which runtime it uses there (the session it
	// views, through presence) is believed first. Spelled as an anonymous
	// interface: main's WorkspaceAgent has this method set.
	if wa, ok := w.(interface{ AgentTypeIn(string) string }); ok {
		if a := wa.AgentTypeIn(workspaceID); a != "" {
			return a
		}
	}
	active, _ := e.activeRef(workspaceID)
	e.mu.Lock()
	var candidates []*session
	for _, s := range e.sessions {
		if s.workspaceID == workspaceID {
			candidates = append(candidates, s)
		}
	}
	e.mu.Unlock()
	found := ""
	for _, s := range candidates {
		s.mu.Lock()
		_, watching := s.watchers[w]
		s.mu.Unlock()
		if !watching {
			continue
		}
		if s.id == active.sessionID || found == "" {
			found = s.agentType
		}
	}
	switch {
	case found != "":
		return found
	case active.agentType != "":
		return active.agentType
	}
	if ids := e.reg.IDs(); len(ids) > 0 {
		return ids[0]
	}
	return ""
}
