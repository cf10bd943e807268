package sessions

// Workspaces seen from the engine: each one's active session, its live
// sessions, and its removal (which stops them).

import (
	"cmp"
	"context"
	"sort"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

type activeRef struct{ sessionID, agentType string }

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

// RemoveWorkspace forgets a workspace and revokes it: from now on nothing
// runs in its directory. Its running sessions are stopped (session_stopped,
// reason "workspace_removed"), a later send to any of them is refused with
// workspace not found, and its subscribers are dropped. Transcripts are
// untouched, and the workspace can be added again.
func (e *Engine) RemoveWorkspace(ctx context.Context, id string) error {
	// Removed first: ensureProcess checks the workspace under the session's
	// opMu, which stop takes too, so a start racing this one either fails
	// or is stopped below.
	gone, err := e.ws.Get(id)
	if err != nil {
		return err
	}
	if err := e.ws.Remove(id); err != nil {
		return err
	}
	e.mu.Lock()
	var running []*session
	agent := e.active[id].agentType
	for _, s := range e.sessions {
		if s.workspaceID == id && !s.external {
			running = append(running, s)
		}
		if s.workspaceID == id && agent == "" {
			agent = s.agentType
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
	if agent == "" && len(e.reg.IDs()) > 0 {
		agent = e.reg.IDs()[0] // the preferred runtime
	}
	now := time.Now()
	for _, w := range subs {
		// Each with the runtime its client uses there: the iOS app drops an
		// event whose agent_type is not a runtime it has open.
		a := agent
		if wa, ok := w.(WorkspaceAgent); ok {
			a = cmp.Or(wa.AgentTypeIn(id), agent)
		}
		w.Deliver(&Event{Type: rpc.EventWorkspaceRemoved, WorkspaceID: id, At: now,
			Frame: notification(rpc.EventPrefix+rpc.EventWorkspaceRemoved, rpc.WorkspaceRemovedEvent{
				ID: gone.ID, Name: gone.Name, Path: gone.Path, AgentType: a, Timestamp: rpc.FormatTime(now)})})
		e.unsubscribe(w, id)
	}
	return nil
}

// WorkspaceAgent is a Watcher that knows which runtime its client uses in
// a workspace (the session it views there), for the workspace events it
// receives; "" when it does not.
type WorkspaceAgent interface {
	AgentTypeIn(workspaceID string) string
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
