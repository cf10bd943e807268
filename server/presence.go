package server

import (
	"cmp"
	"context"
	"time"

	"github.com/cdevd/cdevd/presence"
	"github.com/cdevd/cdevd/rpc"
)

// Presence: which connections view which session (package presence), and
// the events that tell a session's viewers when another comes or goes.

func (s *Server) presenceMethods() family {
	return family{rpc.MethodFocus: read(withClient(s.focus))}
}

// viewing is what a connection focused, for the events its leaving causes.
type viewing struct{ workspaceID, sessionID, agentType string }

func (s *Server) focus(_ context.Context, c *client, p rpc.FocusParams) (rpc.FocusResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.FocusResult{}, err
	}
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.FocusResult{}, err
	}
	if _, err := s.ws.Get(p.WorkspaceID); err != nil {
		return rpc.FocusResult{}, err
	}
	active := p.Active == nil || *p.Active
	me := c.ClientID()
	now := viewing{p.WorkspaceID, p.SessionID, s.agentOf(p.WorkspaceID, p.SessionID)}
	// Under c.mu, so that two focuses of one connection cannot cross
	// between its record and the tracker's (whose lock is a leaf).
	c.mu.Lock()
	before := c.viewing
	if active {
		c.viewing = now
	} else {
		c.viewing = viewing{}
	}
	ch := s.presence.Focus(me, p.SessionID, active)
	c.mu.Unlock()
	s.announce(me, before, now, ch)
	return rpc.FocusResult{Success: true, WorkspaceID: p.WorkspaceID, SessionID: p.SessionID,
		ViewerCount: len(ch.Viewers), OtherViewers: presence.Without(ch.Viewers, me)}, nil
}

// leavePresence is a closed connection's leave.
func (s *Server) leavePresence(c *client) {
	c.mu.Lock()
	before := c.viewing
	ch := s.presence.Leave(c.ClientID())
	c.mu.Unlock()
	s.announce(c.ClientID(), before, viewing{}, ch)
}

// announce sends session_left to the viewers of the session client left
// (before), and session_joined to the other viewers of the one it joined.
func (s *Server) announce(client string, before, now viewing, ch presence.Change) {
	at := rpc.FormatTime(time.Now())
	if ch.Left != "" {
		for _, v := range ch.Remaining {
			s.notifyClient(v, rpc.EventPrefix+rpc.EventSessionLeft, rpc.SessionLeftEvent{
				WorkspaceID: before.workspaceID, AgentType: before.agentType, Timestamp: at, LeavingClientID: client,
				RemainingViewers: presence.Without(ch.Remaining, v), ViewerCount: len(ch.Remaining)})
		}
	}
	if ch.Joined {
		for _, v := range ch.Viewers {
			if v == client {
				continue
			}
			s.notifyClient(v, rpc.EventPrefix+rpc.EventSessionJoined, rpc.SessionJoinedEvent{
				WorkspaceID: now.workspaceID, AgentType: now.agentType, Timestamp: at, JoiningClientID: client,
				OtherViewers: presence.Without(ch.Viewers, v), ViewerCount: len(ch.Viewers)})
		}
	}
}

// notifyClient sends a notification to the connection whose id is id, if
// it is still open.
func (s *Server) notifyClient(id, method string, params any) {
	s.mu.Lock()
	var to *client
	for _, c := range s.clients {
		if c.ClientID() == id {
			to = c
			break
		}
	}
	s.mu.Unlock()
	if to != nil {
		to.conn.Notify(method, params)
	}
}

// agentOf is the runtime of a session for its events: the session's own
// when cdevd knows it, else the one the workspace last used, else the
// default. The iOS app drops an event whose agent_type is not a runtime it
// has open.
func (s *Server) agentOf(workspaceID, sessionID string) string {
	if st, err := s.engine.State(sessionID); err == nil && st.AgentType != "" {
		return st.AgentType
	}
	_, agent := s.engine.ActiveSession(workspaceID)
	return cmp.Or(agent, s.reg.Default())
}

// AgentTypeIn implements sessions.WorkspaceAgent: the runtime of the
// session c views in the workspace, if it views one there.
func (c *client) AgentTypeIn(workspaceID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.viewing.workspaceID == workspaceID {
		return c.viewing.agentType
	}
	return ""
}
