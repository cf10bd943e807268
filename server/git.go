package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces/gitops"
)

// The git family: each handler finds the workspace's repository and hands
// the call to gitops. A workspace outside any repository is NotGitRepo for
// the methods that read, and success:false with the same words for those
// that change something (the app's setup wizard reads their error).
// Every method that changes the repository is followed by
// git_operation_completed to the workspace's subscribers.

func (s *Server) gitMethods() family {
	f := family{
		rpc.MethodGitStatus:   plain(s.gitStatus),
		rpc.MethodGitDiff:     plain(s.gitDiff),
		rpc.MethodGitBranches: plain(s.gitBranches),
		rpc.MethodGitLog:      plain(s.gitLog),
		rpc.MethodGitInit:     plain(s.gitInit),

		rpc.MethodGitStage:   plain(gitWrite(s, "stage", (*gitops.Repo).Stage, pathsFailed)),
		rpc.MethodGitUnstage: plain(gitWrite(s, "unstage", (*gitops.Repo).Unstage, pathsFailed)),
		rpc.MethodGitDiscard: plain(gitWrite(s, "discard", (*gitops.Repo).Discard, pathsFailed)),
		rpc.MethodGitCommit: plain(gitWrite(s, "commit", (*gitops.Repo).Commit,
			func(e string) rpc.GitCommitResult { return rpc.GitCommitResult{Error: e} })),
		rpc.MethodGitPush: plain(gitWrite(s, "push", (*gitops.Repo).Push,
			func(e string) rpc.GitPushResult { return rpc.GitPushResult{Error: e} })),
		rpc.MethodGitPull: plain(gitWrite(s, "pull", (*gitops.Repo).Pull,
			func(e string) rpc.GitPullResult { return rpc.GitPullResult{Error: e, ConflictedFiles: []string{}} })),
		rpc.MethodGitCheckout: plain(gitWrite(s, "checkout", (*gitops.Repo).Checkout,
			func(e string) rpc.GitCheckoutResult { return rpc.GitCheckoutResult{Error: e} })),
		rpc.MethodGitBranchDelete: plain(gitWrite(s, "branch_delete", (*gitops.Repo).BranchDelete,
			func(e string) rpc.GitBranchDeleteResult { return rpc.GitBranchDeleteResult{Error: e} })),
		rpc.MethodGitRemoteAdd: plain(gitWrite(s, "remote_add", (*gitops.Repo).RemoteAdd,
			func(e string) rpc.GitRemoteAddResult {
				return rpc.GitRemoteAddResult{Error: e, FetchedBranches: []string{}}
			})),
		rpc.MethodGitUpstreamSet: plain(gitWrite(s, "upstream_set", (*gitops.Repo).UpstreamSet,
			func(e string) rpc.GitResult { return rpc.GitResult{Error: e} })),
	}
	// Every git method but the four reads changes the repository: a watch
	// device may not call it.
	for name, m := range f {
		if slices.Contains(gitReads, name) {
			f[name] = read(m)
		} else {
			f[name] = act(m)
		}
	}
	return f
}

var gitReads = []string{rpc.MethodGitStatus, rpc.MethodGitDiff, rpc.MethodGitBranches, rpc.MethodGitLog}

func pathsFailed(e string) rpc.GitPathsResult { return rpc.GitPathsResult{Error: e} }

// workspaceOf is the workspace_id of a git method's params (each has one).
// The id is read back from the params' JSON field rather than through a
// method per type, which package rpc (the wire's types only) does not have.
func workspaceOf(p any) string {
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	var w struct {
		WorkspaceID string `json:"workspace_id"`
	}
	_ = json.Unmarshal(b, &w)
	return w.WorkspaceID
}

// gitRepo finds the workspace's repository: WorkspaceNotFound, NotGitRepo,
// or the repository.
func (s *Server) gitRepo(ctx context.Context, workspaceID string) (*gitops.Repo, error) {
	if err := required("workspace_id", workspaceID); err != nil {
		return nil, err
	}
	w, err := s.ws.Get(workspaceID)
	if err != nil {
		return nil, err
	}
	r, err := s.git.Open(ctx, w.Path)
	if errors.Is(err, gitops.ErrNotRepo) {
		return nil, rpc.NotGitRepo(workspaceID, w.Path)
	}
	if err != nil {
		return nil, rpc.AsError(err)
	}
	return r, nil
}

// gitWrite makes the handler of a method that changes the repository: a
// folder outside any repository is an answer (fail), and the outcome is
// told to the workspace's subscribers.
func gitWrite[P, R any](s *Server, op string, do func(*gitops.Repo, context.Context, P) (R, error),
	fail func(string) R) func(context.Context, P) (R, error) {
	return func(ctx context.Context, p P) (R, error) {
		id := workspaceOf(p)
		r, err := s.gitRepo(ctx, id)
		var rerr *rpc.Error
		if errors.As(err, &rerr) && rerr.Code == rpc.CodeNotGitRepo {
			return fail(rerr.Message), nil
		}
		if err != nil {
			var zero R
			return zero, err
		}
		res, err := do(r, ctx, p)
		if err != nil {
			return res, err
		}
		s.gitCompleted(id, op, res)
		return res, nil
	}
}

func (s *Server) gitStatus(ctx context.Context, p rpc.GitWorkspaceParams) (rpc.GitStatusResult, error) {
	r, err := s.gitRepo(ctx, p.WorkspaceID)
	if err != nil {
		return rpc.GitStatusResult{}, err
	}
	return orInternal(r.Status(ctx))
}

func (s *Server) gitDiff(ctx context.Context, p rpc.GitDiffParams) (rpc.GitDiffResult, error) {
	r, err := s.gitRepo(ctx, p.WorkspaceID)
	if err != nil {
		return rpc.GitDiffResult{}, err
	}
	return orInternal(r.Diff(ctx, p))
}

func (s *Server) gitBranches(ctx context.Context, p rpc.GitWorkspaceParams) (rpc.GitBranchesResult, error) {
	r, err := s.gitRepo(ctx, p.WorkspaceID)
	if err != nil {
		return rpc.GitBranchesResult{}, err
	}
	return orInternal(r.Branches(ctx))
}

func (s *Server) gitLog(ctx context.Context, p rpc.GitLogParams) (rpc.GitLogResult, error) {
	r, err := s.gitRepo(ctx, p.WorkspaceID)
	if err != nil {
		return rpc.GitLogResult{}, err
	}
	return orInternal(r.Log(ctx, p))
}

func (s *Server) gitInit(ctx context.Context, p rpc.GitInitParams) (rpc.GitInitResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.GitInitResult{}, err
	}
	w, err := s.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.GitInitResult{}, err
	}
	res, err := s.git.Init(ctx, w.Path, p)
	if err != nil {
		return res, rpc.AsError(err)
	}
	s.gitCompleted(p.WorkspaceID, "init", res)
	return res, nil
}

// orInternal passes a wire error on and makes any other (git could not run,
// or ran out of time) an InternalError carrying its message.
func orInternal[R any](res R, err error) (R, error) {
	if err != nil {
		return res, rpc.AsError(err)
	}
	return res, nil
}
