package server

import (
	"context"

	"github.com/cdevd/cdevd/rpc"
)

func (s *Server) watch(ctx context.Context, c *client, p rpc.WatchParams) (rpc.WatchResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.WatchResult{}, err
	}
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.WatchResult{}, err
	}
	if p.SinceSeq != nil && *p.SinceSeq < 0 {
		return rpc.WatchResult{}, rpc.InvalidParams("since_seq", "must not be negative")
	}
	return s.engine.Watch(ctx, c, p.WorkspaceID, p.SessionID, p.AgentType, p.SinceSeq)
}

func (s *Server) unwatch(_ context.Context, c *client, p rpc.UnwatchParams) (rpc.UnwatchResult, error) {
	wsID := s.engine.Unwatch(c, p.SessionID)
	return rpc.UnwatchResult{Status: "unwatched", Watching: false, WorkspaceID: wsID, SessionID: p.SessionID}, nil
}

func (s *Server) activate(_ context.Context, p rpc.SessionRefParams) (rpc.ActivateResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.ActivateResult{}, err
	}
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.ActivateResult{}, err
	}
	if err := s.engine.Activate(p.WorkspaceID, p.SessionID, p.AgentType); err != nil {
		return rpc.ActivateResult{}, err
	}
	return rpc.ActivateResult{Success: true, WorkspaceID: p.WorkspaceID, SessionID: p.SessionID}, nil
}
