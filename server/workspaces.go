package server

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

func (s *Server) workspaceMethods() family {
	return family{
		// Not a lookup: include_git runs git in every workspace.
		rpc.MethodWorkspaceList:          plain(s.workspaceList),
		rpc.MethodWorkspaceAdd:           plain(s.workspaceAdd),
		rpc.MethodWorkspaceRemove:        plain(s.workspaceRemove),
		rpc.MethodWorkspaceGet:           lookup(plain(s.workspaceGet)),
		rpc.MethodWorkspaceSubscribe:     withClient(s.workspaceSubscribe),
		rpc.MethodWorkspaceUnsubscribe:   withClient(s.workspaceUnsubscribe),
		rpc.MethodWorkspaceSubscriptions: lookup(withClient(s.workspaceSubscriptions)),
		rpc.MethodWorkspaceSubscribeAll:  withClient(s.workspaceSubscribeAll),
	}
}

func (s *Server) toWire(w workspaces.Workspace) rpc.Workspace {
	live := s.engine.WorkspaceSessions(w.ID)
	activeID, activeAgent := s.engine.ActiveSession(w.ID)
	_, err := os.Stat(filepath.Join(w.Path, ".git"))
	return rpc.Workspace{ID: w.ID, Name: w.Name, Path: w.Path,
		CreatedAt: rpc.FormatTime(w.CreatedAt), Sessions: live,
		ActiveSessionID: activeID, ActiveAgentType: activeAgent, IsGitRepo: err == nil}
}

func (s *Server) workspaceList(ctx context.Context, p rpc.WorkspaceListParams) (rpc.WorkspaceListResult, error) {
	list := s.ws.List()
	res := rpc.WorkspaceListResult{Workspaces: make([]rpc.Workspace, 0, len(list))}
	for _, w := range list {
		res.Workspaces = append(res.Workspaces, s.toWire(w))
	}
	if p.IncludeGit {
		s.addGitSummaries(ctx, res.Workspaces)
	}
	return res, nil
}

// addGitSummaries fills each workspace's git summary, a few at a time: each
// is a git status, which in a large repository takes a while.
func (s *Server) addGitSummaries(ctx context.Context, list []rpc.Workspace) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range list {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			sum := s.git.Summary(ctx, list[i].Path)
			list[i].Git = &sum
		}()
	}
	wg.Wait()
}

func (s *Server) workspaceAdd(_ context.Context, p rpc.WorkspaceAddParams) (rpc.Workspace, error) {
	w, err := s.ws.Add(p.Path, p.Name, p.CreateIfMissing)
	if err != nil {
		return rpc.Workspace{}, err
	}
	return s.toWire(w), nil
}

func (s *Server) workspaceRemove(ctx context.Context, p rpc.WorkspaceIDParams) (rpc.SuccessResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.SuccessResult{}, err
	}
	if err := s.engine.RemoveWorkspace(ctx, p.WorkspaceID); err != nil {
		return rpc.SuccessResult{}, err
	}
	return rpc.SuccessResult{Success: true}, nil
}

func (s *Server) workspaceGet(_ context.Context, p rpc.WorkspaceIDParams) (rpc.Workspace, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.Workspace{}, err
	}
	w, err := s.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.Workspace{}, err
	}
	return s.toWire(w), nil
}

func (s *Server) workspaceSubscribe(_ context.Context, c *client, p rpc.WorkspaceIDParams) (rpc.SubscribeResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.SubscribeResult{}, err
	}
	ids, err := s.engine.Subscribe(c, p.WorkspaceID)
	if err != nil {
		return rpc.SubscribeResult{}, err
	}
	return rpc.SubscribeResult{Success: true, WorkspaceID: p.WorkspaceID, Subscribed: ids}, nil
}

func (s *Server) workspaceUnsubscribe(_ context.Context, c *client, p rpc.WorkspaceIDParams) (rpc.SubscribeResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.SubscribeResult{}, err
	}
	ids, err := s.engine.Unsubscribe(c, p.WorkspaceID)
	if err != nil {
		return rpc.SubscribeResult{}, err
	}
	return rpc.SubscribeResult{Success: true, WorkspaceID: p.WorkspaceID, Subscribed: ids}, nil
}

func (s *Server) workspaceSubscriptions(_ context.Context, c *client, _ rpc.EmptyParams) (rpc.SubscriptionsResult, error) {
	return rpc.SubscriptionsResult{Workspaces: s.engine.Subscriptions(c)}, nil
}

func (s *Server) workspaceSubscribeAll(_ context.Context, c *client, _ rpc.EmptyParams) (rpc.SubscribeResult, error) {
	ids, err := s.engine.Subscribe(c, "")
	if err != nil {
		return rpc.SubscribeResult{}, err
	}
	return rpc.SubscribeResult{Success: true, Subscribed: ids}, nil
}
