package server

import (
	"context"
	"encoding/json"

	"github.com/cdevd/cdevd/rpc"
)

func (s *Server) historyMethods() family {
	return family{
		rpc.MethodHistory:  read(plain(s.history)),
		rpc.MethodMessages: read(plain(s.messages)),
		rpc.MethodWatch:    read(withClient(s.watch)),
		rpc.MethodUnwatch:  read(withClient(s.unwatch)),
		rpc.MethodActivate: act(withClient(s.activate)),
		rpc.MethodDelete:   act(plain(s.delete)),
	}
}

func (s *Server) watch(ctx context.Context, c *client, p rpc.WatchParams) (any, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return nil, err
	}
	if err := required("session_id", p.SessionID); err != nil {
		return nil, err
	}
	if p.SinceSeq != nil && *p.SinceSeq < 0 {
		return nil, rpc.InvalidParams("since_seq", "must not be negative")
	}
	res, replay, err := s.engine.Watch(ctx, c, p.WorkspaceID, p.SessionID, p.AgentType, p.SinceSeq, p.Epoch)
	if err != nil || replay == nil {
		return res, err
	}
	return thenReplay{res, replay}, nil
}

// thenReplay is watch's reply, with the replay of missed events to run once
// the reply is queued, so that the client reads the reply first.
type thenReplay struct {
	rpc.WatchResult
	replay func()
}

func (t thenReplay) MarshalJSON() ([]byte, error) { return json.Marshal(t.WatchResult) }

// AfterReply implements transport.AfterReply.
func (t thenReplay) AfterReply() { t.replay() }

func (s *Server) unwatch(_ context.Context, c *client, p rpc.UnwatchParams) (rpc.UnwatchResult, error) {
	wsID := s.engine.Unwatch(c, p.SessionID)
	return rpc.UnwatchResult{Status: "unwatched", Watching: false, WorkspaceID: wsID, SessionID: p.SessionID}, nil
}

func (s *Server) activate(_ context.Context, c *client, p rpc.SessionRefParams) (rpc.ActivateResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.ActivateResult{}, err
	}
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.ActivateResult{}, err
	}
	if err := s.engine.Activate(p.WorkspaceID, p.SessionID, p.AgentType); err != nil {
		return rpc.ActivateResult{}, err
	}
	c.setWorkspace(p.WorkspaceID)
	return rpc.ActivateResult{Success: true, WorkspaceID: p.WorkspaceID, SessionID: p.SessionID}, nil
}

func (s *Server) history(ctx context.Context, p rpc.HistoryParams) (rpc.HistoryResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.HistoryResult{}, err
	}
	return s.engine.History(ctx, p)
}

func (s *Server) messages(ctx context.Context, p rpc.MessagesParams) (rpc.MessagesResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.MessagesResult{}, err
	}
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.MessagesResult{}, err
	}
	if err := oneOf("order", p.Order, rpc.OrderAsc, rpc.OrderDesc); err != nil {
		return rpc.MessagesResult{}, err
	}
	return s.engine.Messages(ctx, p)
}

func (s *Server) delete(ctx context.Context, p rpc.SessionRefParams) (rpc.DeleteResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.DeleteResult{}, err
	}
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.DeleteResult{}, err
	}
	return s.engine.Delete(ctx, p)
}
