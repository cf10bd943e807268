package server

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

func (s *Server) workspaceMethods() family {
	return family{
		// Not a lookup: include_git runs git in every workspace.
		rpc.MethodWorkspaceList:          read(plain(s.workspaceList)),
		rpc.MethodWorkspaceAdd:           act(plain(s.workspaceAdd)),
		rpc.MethodWorkspaceRemove:        act(plain(s.workspaceRemove)),
		rpc.MethodWorkspaceGet:           read(lookup(plain(s.workspaceGet))),
		rpc.MethodWorkspaceSubscribe:     read(withClient(s.workspaceSubscribe)),
		rpc.MethodWorkspaceUnsubscribe:   read(withClient(s.workspaceUnsubscribe)),
		rpc.MethodWorkspaceSubscriptions: read(lookup(withClient(s.workspaceSubscriptions))),
		rpc.MethodWorkspaceSubscribeAll:  read(withClient(s.workspaceSubscribeAll)),
		rpc.MethodWorkspaceStatus:        read(withClient(s.workspaceStatus)),
		rpc.MethodWorkspaceDiscover:      read(plain(s.workspaceDiscover)),
	}
}

func (s *Server) toWire(w workspaces.Workspace) rpc.Workspace {
	live := s.engine.WorkspaceSessions(w.ID)
	for i := range live {
		live[i].Viewers = s.presence.Viewers(live[i].ID)
	}
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
	w, err := s.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.SuccessResult{}, err
	}
	if err := s.engine.RemoveWorkspace(ctx, p.WorkspaceID); err != nil {
		return rpc.SuccessResult{}, err
	}
	s.search.Forget(w.Path) // its index and watches
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
	c.setWorkspace(p.WorkspaceID)
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

func (s *Server) workspaceStatus(_ context.Context, c *client, p rpc.WorkspaceIDParams) (rpc.WorkspaceStatusResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.WorkspaceStatusResult{}, err
	}
	w, err := s.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.WorkspaceStatusResult{}, err
	}
	wire := s.toWire(w)
	res := rpc.WorkspaceStatusResult{WorkspaceID: w.ID, WorkspaceName: w.Name, Path: w.Path,
		Sessions: wire.Sessions, IsGitRepo: wire.IsGitRepo}
	if res.Sessions == nil {
		res.Sessions = []rpc.WorkspaceSession{}
	}
	for _, ls := range res.Sessions {
		if ls.Status == rpc.StatusRunning || ls.Status == rpc.StatusStarting {
			res.ActiveSessionCount++
		}
	}
	res.HasActiveSession = res.ActiveSessionCount > 0
	if res.IsGitRepo {
		res.GitRepoName = filepath.Base(w.Path)
	}
	c.mu.Lock()
	if c.viewing.workspaceID == w.ID {
		res.WatchedSessionID = c.viewing.sessionID
	}
	c.mu.Unlock()
	res.IsBeingWatched = res.WatchedSessionID != "" || slices.Contains(s.engine.Subscriptions(c), w.ID)
	return res, nil
}

func (s *Server) workspaceDiscover(ctx context.Context, p rpc.RepoDiscoverParams) (rpc.RepoDiscoverResult, error) {
	roots, bad := s.discover.Roots(p.Paths)
	if bad != "" {
		return rpc.RepoDiscoverResult{}, rpc.InvalidParams("paths", bad+" is not absolute (nor ~/…)")
	}
	scan, cached, refreshing := s.discover.Find(ctx, roots, p.Fresh)
	configured := map[string]bool{}
	for _, w := range s.ws.List() {
		configured[w.Path] = true
	}
	res := rpc.RepoDiscoverResult{Repositories: make([]rpc.DiscoveredRepo, 0, len(scan.Repos)), Count: len(scan.Repos),
		Cached: cached, RefreshInProgress: refreshing, ElapsedMS: float64(scan.Took.Microseconds()) / 1000,
		ScannedPaths: scan.Scanned, SkippedPaths: scan.Skipped}
	if cached {
		res.CacheAgeSeconds = time.Since(scan.At).Seconds()
	}
	for _, r := range scan.Repos {
		res.Repositories = append(res.Repositories, rpc.DiscoveredRepo{Name: r.Name, Path: r.Path, RemoteURL: r.RemoteURL,
			LastModified: rpc.FormatTime(r.LastModified), IsConfigured: configured[r.Path]})
	}
	return res, nil
}
