package server

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces/gitops"
)

// The workspace events of the git family: git_operation_completed after
// each method that changes a repository, and, while a workspace has
// subscribers, file_changed and git_status_changed from a watch of its
// folder (started by the engine with the first subscriber, through
// SetWorkspaceWatch, and closed with the last).

// gitCompleted tells the workspace's subscribers how a git method ended.
// res is the method's result; its success, sha, message and error are read
// back from its JSON, the one shape all of them share.
func (s *Server) gitCompleted(workspaceID, op string, res any) {
	b, err := json.Marshal(res)
	if err != nil {
		return
	}
	var out struct {
		Success   bool   `json:"success"`
		SHA       string `json:"sha"`
		CommitSHA string `json:"commit_sha"`
		Message   string `json:"message"`
		Error     string `json:"error"`
	}
	if json.Unmarshal(b, &out) != nil {
		return
	}
	if out.SHA == "" {
		out.SHA = out.CommitSHA
	}
	now := rpc.FormatTime(time.Now())
	s.engine.NotifyWorkspace(workspaceID, rpc.EventGitOperationCompleted, func(agent string) any {
		return rpc.GitOperationCompletedEvent{
			WorkspaceEventHeader: rpc.WorkspaceEventHeader{WorkspaceID: workspaceID, AgentType: agent, Timestamp: now},
			Operation:            op, Success: out.Success, SHA: out.SHA, Message: out.Message, Error: out.Error}
	})
}

// watchWorkspace is the engine's WorkspaceWatch: it watches the folder and
// turns each report into events.
func (s *Server) watchWorkspace(workspaceID, dir string) (io.Closer, error) {
	st := &statusTracker{}
	return s.git.WatchTree(context.Background(), s.cfg.Watcher, dir, func(r gitops.Report) {
		s.workspaceReport(workspaceID, dir, r, st)
	})
}

// statusTracker remembers the last git_status_changed of a workspace, so
// that a report that moves nothing (a build writing an ignored file) sends
// none.
type statusTracker struct {
	mu   sync.Mutex
	last *rpc.GitStatusChangedEvent
}

// workspaceReport sends a report's file_changed events, then a
// git_status_changed when the status moved or a changed file is in it.
func (s *Server) workspaceReport(workspaceID, dir string, r gitops.Report, st *statusTracker) {
	now := rpc.FormatTime(time.Now())
	header := func(agent string) rpc.WorkspaceEventHeader {
		return rpc.WorkspaceEventHeader{WorkspaceID: workspaceID, AgentType: agent, Timestamp: now}
	}
	changed := make([]string, 0, len(r.Files))
	for _, f := range r.Files {
		changed = append(changed, f.Path)
		ev := rpc.FileChangedEvent{Path: f.Path, Change: f.Change}
		if f.Size >= 0 {
			size := f.Size
			ev.Size = &size
		}
		s.engine.NotifyWorkspace(workspaceID, rpc.EventFileChanged, func(agent string) any {
			ev.WorkspaceEventHeader = header(agent)
			return ev
		})
	}
	if !r.Git {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitops.DefaultTimeout)
	defer cancel()
	repo, err := s.git.Open(ctx, dir)
	if err != nil {
		return // not a repository (yet): file_changed is all there is
	}
	status, err := repo.Status(ctx)
	if err != nil {
		return
	}
	ev := rpc.GitStatusChangedEvent{Branch: status.Branch, Ahead: status.Ahead, Behind: status.Behind,
		StagedCount: len(status.Staged), UnstagedCount: len(status.Unstaged), UntrackedCount: len(status.Untracked),
		HasConflicts: len(status.Conflicted) > 0, ChangedFiles: changed}
	st.mu.Lock()
	moved := st.last == nil || !sameStatus(*st.last, ev) || touches(status, changed)
	st.last = &ev
	st.mu.Unlock()
	if !moved {
		return
	}
	s.engine.NotifyWorkspace(workspaceID, rpc.EventGitStatusChanged, func(agent string) any {
		ev.WorkspaceEventHeader = header(agent)
		return ev
	})
}

// sameStatus compares what git_status_changed says, files aside.
func sameStatus(a, b rpc.GitStatusChangedEvent) bool {
	return a.Branch == b.Branch && a.Ahead == b.Ahead && a.Behind == b.Behind && a.StagedCount == b.StagedCount &&
		a.UnstagedCount == b.UnstagedCount && a.UntrackedCount == b.UntrackedCount && a.HasConflicts == b.HasConflicts
}

// touches reports whether a changed file is among the status's files (an
// edit of a file already modified moves its diff, not the counts).
func touches(st rpc.GitStatusResult, changed []string) bool {
	for _, list := range [][]rpc.GitFile{st.Staged, st.Unstaged, st.Untracked, st.Conflicted} {
		for _, f := range list {
			if slices.Contains(changed, f.Path) {
				return true
			}
		}
	}
	return false
}
