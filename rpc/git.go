package rpc

// The git family: the iOS app's Changes tab, diff viewer, branch sheet,
// history and Git setup wizard. Every method names a workspace; git runs in
// the repository that holds the workspace's folder, and paths are relative
// to that repository's root (repo_root). Methods that change the repository
// answer failures as success:false with an error a person can act on.

// GitWorkspaceParams names the workspace of a git method that takes nothing else.
type GitWorkspaceParams struct {
	WorkspaceID string `json:"workspace_id"`
}

// GitFile is one changed file in git/status.
type GitFile struct {
	Path      string `json:"path" doc:"Relative to repo_root."`
	OldPath   string `json:"old_path,omitempty" doc:"The path before a rename or copy."`
	Status    string `json:"status" enum:"M,A,D,R,C,T,?,U" doc:"M A D R C T as git; ? untracked; U unmerged."`
	Additions *int   `json:"additions,omitempty" doc:"Lines added; omitted for binary files and when many files changed."`
	Deletions *int   `json:"deletions,omitempty" doc:"Lines deleted; omitted as additions is."`
}

// GitStatusResult is the working tree's state.
type GitStatusResult struct {
	Branch     string    `json:"branch" doc:"Empty when HEAD is detached."`
	Upstream   string    `json:"upstream,omitempty"`
	Ahead      int       `json:"ahead"`
	Behind     int       `json:"behind"`
	Staged     []GitFile `json:"staged"`
	Unstaged   []GitFile `json:"unstaged"`
	Untracked  []GitFile `json:"untracked"`
	Conflicted []GitFile `json:"conflicted"`
	RepoName   string    `json:"repo_name"`
	RepoRoot   string    `json:"repo_root"`
}

// GitDiffParams asks for one file's diff, or every changed file's.
type GitDiffParams struct {
	WorkspaceID string `json:"workspace_id"`
	Path        string `json:"path,omitempty" doc:"Omitted: every changed file."`
	Staged      bool   `json:"staged,omitempty" doc:"false (what the app always sends) gives the working tree's diff, or the staged one when the file has no unstaged change."`
}

// GitFileDiff is one file's unified diff.
type GitFileDiff struct {
	Path        string `json:"path"`
	Diff        string `json:"diff"`
	IsNew       bool   `json:"is_new"`
	IsStaged    bool   `json:"is_staged"`
	IsTruncated bool   `json:"is_truncated"`
}

// GitDiffResult carries the diffs, first the one asked for.
type GitDiffResult struct {
	Diffs []GitFileDiff `json:"diffs"`
}

// GitPathsParams names the files of git/stage, git/unstage and git/discard.
type GitPathsParams struct {
	WorkspaceID string   `json:"workspace_id"`
	Paths       []string `json:"paths" doc:"Relative to repo_root; \".\" is every file."`
}

// GitPathsResult answers git/stage, git/unstage and git/discard.
type GitPathsResult struct {
	Success        bool   `json:"success"`
	Message        string `json:"message,omitempty"`
	StagedCount    int    `json:"staged_count"`
	UnstagedCount  int    `json:"unstaged_count"`
	DiscardedCount int    `json:"discarded_count,omitempty"`
	Error          string `json:"error,omitempty"`
}

// GitCommitParams commits what is staged.
type GitCommitParams struct {
	WorkspaceID string `json:"workspace_id"`
	Message     string `json:"message"`
	Push        bool   `json:"push,omitempty" doc:"Push the branch after committing."`
}

// GitCommitResult answers git/commit.
type GitCommitResult struct {
	Success        bool   `json:"success"`
	SHA            string `json:"sha,omitempty"`
	Message        string `json:"message,omitempty"`
	FilesCommitted int    `json:"files_committed"`
	Pushed         bool   `json:"pushed"`
	Error          string `json:"error,omitempty"`
}

// GitPushParams pushes the current branch.
type GitPushParams struct {
	WorkspaceID string `json:"workspace_id"`
	Force       bool   `json:"force,omitempty" doc:"A push with --force-with-lease."`
	SetUpstream bool   `json:"set_upstream,omitempty" doc:"Make the pushed branch the upstream (also done when there is none)."`
}

// GitPushResult answers git/push.
type GitPushResult struct {
	Success       bool   `json:"success"`
	Message       string `json:"message,omitempty"`
	Error         string `json:"error,omitempty"`
	CommitsPushed int    `json:"commits_pushed"`
}

// GitPullParams pulls the current branch's upstream.
type GitPullParams struct {
	WorkspaceID string `json:"workspace_id"`
	Rebase      bool   `json:"rebase,omitempty"`
}

// GitPullResult answers git/pull.
type GitPullResult struct {
	Success         bool     `json:"success"`
	Message         string   `json:"message,omitempty"`
	Error           string   `json:"error,omitempty"`
	ConflictedFiles []string `json:"conflicted_files"`
}

// GitBranch is one local or remote-tracking branch.
type GitBranch struct {
	Name      string `json:"name"`
	IsCurrent bool   `json:"is_current"`
	IsRemote  bool   `json:"is_remote"`
	Upstream  string `json:"upstream,omitempty"`
}

// GitBranchesResult lists the branches.
type GitBranchesResult struct {
	Current  string      `json:"current"`
	Upstream string      `json:"upstream,omitempty"`
	Ahead    int         `json:"ahead"`
	Behind   int         `json:"behind"`
	Branches []GitBranch `json:"branches"`
}

// GitCheckoutParams switches branch, or creates one.
type GitCheckoutParams struct {
	WorkspaceID string `json:"workspace_id"`
	Branch      string `json:"branch" doc:"A local branch, or a remote-tracking one (origin/x) to track."`
	Create      bool   `json:"create,omitempty"`
}

// GitCheckoutResult answers git/checkout.
type GitCheckoutResult struct {
	Success bool   `json:"success"`
	Branch  string `json:"branch,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// GitBranchDeleteParams deletes a local branch.
type GitBranchDeleteParams struct {
	WorkspaceID  string `json:"workspace_id"`
	Branch       string `json:"branch"`
	Force        bool   `json:"force,omitempty" doc:"Delete even if not merged."`
	DeleteRemote bool   `json:"delete_remote,omitempty" doc:"Also delete the branch on its remote."`
}

// GitBranchDeleteResult answers git/branch/delete.
type GitBranchDeleteResult struct {
	Success       bool   `json:"success"`
	Branch        string `json:"branch,omitempty"`
	Message       string `json:"message,omitempty"`
	Error         string `json:"error,omitempty"`
	DeletedRemote bool   `json:"deleted_remote"`
}

// GitLogParams pages the history of HEAD.
type GitLogParams struct {
	WorkspaceID string `json:"workspace_id"`
	Limit       int    `json:"limit,omitempty" minimum:"0" doc:"Default 50, at most 500."`
	Offset      int    `json:"offset,omitempty" minimum:"0"`
	Graph       bool   `json:"graph,omitempty" doc:"Lay out the commit graph (graph_position, max_columns)."`
}

// GitRef is a branch or tag pointing at a commit.
type GitRef struct {
	Name string `json:"name"`
	Type string `json:"type" enum:"head,branch,remote,tag"`
}

// GitGraphLine is one edge drawn in a commit's row, from a column of the row
// above to a column of the row below.
type GitGraphLine struct {
	FromColumn int    `json:"from_column"`
	ToColumn   int    `json:"to_column"`
	Type       string `json:"type" enum:"straight,merge,branch" doc:"straight: a lane passing by or the commit's first parent; merge: to a further parent; branch: a lane ending here because it joins the commit's column."`
}

// GitGraphPosition places a commit in the graph.
type GitGraphPosition struct {
	Column int            `json:"column"`
	Lines  []GitGraphLine `json:"lines"`
}

// GitCommit is one commit of git/log.
type GitCommit struct {
	SHA           string            `json:"sha"`
	ShortSHA      string            `json:"short_sha"`
	Subject       string            `json:"subject"`
	Author        string            `json:"author"`
	AuthorEmail   string            `json:"author_email"`
	Date          string            `json:"date" format:"date-time"`
	RelativeDate  string            `json:"relative_date"`
	ParentSHAs    []string          `json:"parent_shas"`
	IsMerge       bool              `json:"is_merge"`
	Refs          []GitRef          `json:"refs"`
	GraphPosition *GitGraphPosition `json:"graph_position,omitempty"`
}

// GitLogResult is one page of history.
type GitLogResult struct {
	Commits    []GitCommit `json:"commits"`
	TotalCount int         `json:"total_count"`
	HasMore    bool        `json:"has_more"`
	MaxColumns int         `json:"max_columns,omitempty"`
}

// GitInitParams makes the workspace's folder a repository.
type GitInitParams struct {
	WorkspaceID   string `json:"workspace_id"`
	InitialBranch string `json:"initial_branch,omitempty" doc:"Default main."`
	InitialCommit bool   `json:"initial_commit,omitempty" doc:"Commit every file (ignored ones left out)."`
}

// GitInitResult answers git/init.
type GitInitResult struct {
	Success        bool   `json:"success"`
	Branch         string `json:"branch,omitempty"`
	CommitSHA      string `json:"commit_sha,omitempty"`
	FilesCommitted int    `json:"files_committed"`
	Message        string `json:"message,omitempty"`
	Error          string `json:"error,omitempty"`
}

// GitRemoteAddParams adds a remote.
type GitRemoteAddParams struct {
	WorkspaceID string `json:"workspace_id"`
	Name        string `json:"name,omitempty" doc:"Default origin."`
	URL         string `json:"url"`
	Fetch       bool   `json:"fetch,omitempty" doc:"Fetch it once added."`
}

// GitRemote describes a remote.
type GitRemote struct {
	Name     string `json:"name"`
	FetchURL string `json:"fetch_url"`
	PushURL  string `json:"push_url"`
	Provider string `json:"provider" enum:"github,gitlab,bitbucket,other"`
}

// GitRemoteAddResult answers git/remote/add.
type GitRemoteAddResult struct {
	Success         bool       `json:"success"`
	Remote          *GitRemote `json:"remote,omitempty"`
	FetchedBranches []string   `json:"fetched_branches"`
	Message         string     `json:"message,omitempty"`
	Error           string     `json:"error,omitempty"`
}

// GitUpstreamSetParams sets a branch's upstream.
type GitUpstreamSetParams struct {
	WorkspaceID string `json:"workspace_id"`
	Branch      string `json:"branch,omitempty" doc:"Default the current branch."`
	Upstream    string `json:"upstream" doc:"A remote-tracking branch, e.g. origin/main."`
}

// GitResult is a bare outcome.
type GitResult struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// GitSummary is a workspace's git state in workspace/list {include_git}.
type GitSummary struct {
	Initialized    bool   `json:"initialized"`
	HasRemotes     bool   `json:"has_remotes"`
	Branch         string `json:"branch,omitempty"`
	Ahead          int    `json:"ahead"`
	Behind         int    `json:"behind"`
	StagedCount    int    `json:"staged_count"`
	UnstagedCount  int    `json:"unstaged_count"`
	UntrackedCount int    `json:"untracked_count"`
	State          string `json:"state" enum:"none,clean,dirty,conflicted,merging,rebasing" doc:"none: not a repository."`
}

// Workspace event types: news of a workspace's files and repository, sent
// to the workspace's subscribers. They belong to no session and carry no
// session_id (the iOS app would read them as session info); agent_type is
// the runtime the subscriber uses in the workspace (the app drops events of
// runtimes it has not open).
const (
	EventGitStatusChanged      = "git_status_changed"
	EventGitOperationCompleted = "git_operation_completed"
	EventFileChanged           = "file_changed"
)

// WorkspaceEventHeader is carried, flattened, by every workspace event.
type WorkspaceEventHeader struct {
	WorkspaceID string `json:"workspace_id"`
	AgentType   string `json:"agent_type" doc:"The runtime this client uses in the workspace (its watched or active session's, else the default)."`
	Timestamp   string `json:"timestamp" format:"date-time"`
}

// GitStatusChangedEvent: the repository's status moved (files edited,
// staged, committed; a branch switched).
type GitStatusChangedEvent struct {
	WorkspaceEventHeader
	Branch         string   `json:"branch"`
	Ahead          int      `json:"ahead"`
	Behind         int      `json:"behind"`
	StagedCount    int      `json:"staged_count"`
	UnstagedCount  int      `json:"unstaged_count"`
	UntrackedCount int      `json:"untracked_count"`
	HasConflicts   bool     `json:"has_conflicts"`
	ChangedFiles   []string `json:"changed_files" doc:"Files seen changing since the last event (at most 200)."`
}

// GitOperationCompletedEvent follows each git method that changes the
// repository, whoever called it.
type GitOperationCompletedEvent struct {
	WorkspaceEventHeader
	Operation string `json:"operation" enum:"stage,unstage,discard,commit,push,pull,checkout,branch_delete,init,remote_add,upstream_set"`
	Success   bool   `json:"success"`
	SHA       string `json:"sha,omitempty" doc:"The new commit (commit, init)."`
	Message   string `json:"message,omitempty"`
	Error     string `json:"error,omitempty"`
}

// FileChangedEvent: a file of the workspace was created, written or
// deleted (ignored folders and .git are not watched).
type FileChangedEvent struct {
	WorkspaceEventHeader
	Path    string `json:"path" doc:"Relative to the workspace's folder."`
	Change  string `json:"change" enum:"created,modified,deleted,renamed" doc:"A rename comes as deleted (old name) and created (new name)."`
	Size    *int64 `json:"size,omitempty" doc:"Bytes; omitted when deleted."`
	OldPath string `json:"old_path,omitempty"`
}
