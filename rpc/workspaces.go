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
	Viewers     []string      `json:"viewers,omitempty" doc:"Client ids viewing it now (client/session/focus)."`
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

// WorkspaceStatusResult is a workspace's state as this connection sees it.
type WorkspaceStatusResult struct {
	WorkspaceID        string             `json:"workspace_id"`
	WorkspaceName      string             `json:"workspace_name"`
	Path               string             `json:"path"`
	Sessions           []WorkspaceSession `json:"sessions" doc:"Sessions cdevd runs in this workspace."`
	ActiveSessionCount int                `json:"active_session_count" doc:"Those starting or running."`
	HasActiveSession   bool               `json:"has_active_session"`
	IsGitRepo          bool               `json:"is_git_repo"`
	GitRepoName        string             `json:"git_repo_name,omitempty" doc:"The work tree's folder name."`
	IsBeingWatched     bool               `json:"is_being_watched" doc:"This connection subscribed to the workspace or views a session in it."`
	WatchedSessionID   string             `json:"watched_session_id,omitempty" doc:"The session this connection views there (client/session/focus); the iOS app selects it."`
}

// RepoDiscoverParams asks for git repositories that could become workspaces.
type RepoDiscoverParams struct {
	Fresh bool     `json:"fresh,omitempty" doc:"Refresh the cached answer (in the background when there is one: refresh_in_progress)."`
	Paths []string `json:"paths,omitempty" doc:"Folders to scan (absolute or ~/…); default: ~/Projects, ~/Code, ~/src and the like."`
}

// DiscoveredRepo is one repository found.
type DiscoveredRepo struct {
	Name         string `json:"name"`
	Path         string `json:"path"`
	RemoteURL    string `json:"remote_url,omitempty" doc:"origin's URL, without credentials."`
	LastModified string `json:"last_modified,omitempty" format:"date-time"`
	IsConfigured bool   `json:"is_configured" doc:"Already a workspace."`
}

// RepoDiscoverResult lists the repositories found, most recently worked on first.
type RepoDiscoverResult struct {
	Repositories      []DiscoveredRepo `json:"repositories"`
	Count             int              `json:"count"`
	Cached            bool             `json:"cached"`
	CacheAgeSeconds   float64          `json:"cache_age_seconds"`
	RefreshInProgress bool             `json:"refresh_in_progress" doc:"A refresh runs: ask again (the iOS app polls every 2 s)."`
	ElapsedMS         float64          `json:"elapsed_ms" doc:"The scan's duration."`
	ScannedPaths      []string         `json:"scanned_paths"`
	SkippedPaths      []string         `json:"skipped_paths" doc:"Folders that do not exist or cannot be read."`
}
