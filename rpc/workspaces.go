package rpc

// Workspace is a directory the user allowed sessions to run in.
type Workspace struct {
	ID              string             `json:"id" doc:"Stable for a path."`
	Name            string             `json:"name"`
	Path            string             `json:"path" doc:"Canonical absolute path (symlinks resolved)."`
	CreatedAt       string             `json:"created_at" format:"date-time"`
	Sessions        []WorkspaceSession `json:"sessions,omitempty" doc:"Sessions cdevd runs in this workspace."`
	ActiveSessionID string             `json:"active_session_id,omitempty"`
	ActiveAgentType string             `json:"active_agent_type,omitempty"`
	IsGitRepo       bool               `json:"is_git_repo,omitempty"`
	Git             *GitSummary        `json:"git,omitempty" doc:"With workspace/list include_git: the repository's state."`
}

// WorkspaceSession is a live session in a workspace listing.
type WorkspaceSession struct {
	ID          string        `json:"id"`
	WorkspaceID string        `json:"workspace_id"`
	AgentType   string        `json:"agent_type,omitempty"`
	Status      SessionStatus `json:"status"`
}

// WorkspaceListParams lists workspaces.
type WorkspaceListParams struct {
	IncludeGit bool `json:"include_git,omitempty" doc:"Add each workspace's git summary (git); is_git_repo is always filled."`
	GitLimit   int  `json:"git_limit,omitempty" doc:"Accepted for compatibility."`
}

// WorkspaceListResult is the workspace list.
type WorkspaceListResult struct {
	Workspaces []Workspace `json:"workspaces"`
}

// WorkspaceAddParams adds a workspace.
type WorkspaceAddParams struct {
	Path            string `json:"path"`
	Name            string `json:"name,omitempty" doc:"Defaults to the directory's base name."`
	CreateIfMissing bool   `json:"create_if_missing,omitempty"`
}

// WorkspaceIDParams names one workspace.
type WorkspaceIDParams struct {
	WorkspaceID string `json:"workspace_id"`
}

// SuccessResult is a bare acknowledgement.
type SuccessResult struct {
	Success bool `json:"success"`
}

// SubscribeResult answers workspace/subscribe, unsubscribe and subscribeAll.
type SubscribeResult struct {
	Success     bool     `json:"success"`
	WorkspaceID string   `json:"workspace_id,omitempty"`
	Subscribed  []string `json:"subscribed" doc:"Workspace ids this connection is now subscribed to."`
}

// SubscriptionsResult lists this connection's workspace subscriptions.
type SubscriptionsResult struct {
	Workspaces []string `json:"workspaces"`
}

// EmptyParams takes nothing.
type EmptyParams struct{}
