package rpc

// Method names.
const (
	MethodInitialize  = "initialize"
	MethodInitialized = "initialized"
	MethodDiscover    = "rpc.discover"

	MethodWorkspaceList          = "workspace/list"
	MethodWorkspaceAdd           = "workspace/add"
	MethodWorkspaceRemove        = "workspace/remove"
	MethodWorkspaceGet           = "workspace/get"
	MethodWorkspaceSubscribe     = "workspace/subscribe"
	MethodWorkspaceUnsubscribe   = "workspace/unsubscribe"
	MethodWorkspaceSubscriptions = "workspace/subscriptions"
	MethodWorkspaceSubscribeAll  = "workspace/subscribeAll"
	MethodWorkspaceStatus        = "workspace/status"
	MethodWorkspaceDiscover      = "workspace/discover"

	MethodFilesList = "workspace/files/list"
	MethodFileGet   = "workspace/file/get"
	MethodSearch    = "repository/search"

	MethodFocus = "client/session/focus"

	MethodSessionStart   = "session/start"
	MethodSessionSend    = "session/send"
	MethodSessionStop    = "session/stop"
	MethodSessionInput   = "session/input"
	MethodSessionRespond = "session/respond"
	MethodSessionState   = "session/state"

	MethodHistory  = "workspace/session/history"
	MethodMessages = "workspace/session/messages"
	MethodWatch    = "workspace/session/watch"
	MethodUnwatch  = "workspace/session/unwatch"
	MethodActivate = "workspace/session/activate"
	MethodDelete   = "workspace/session/delete"

	MethodNotifyTest          = "notify/test"
	MethodNotifyVAPIDKey      = "notify/vapidKey"
	MethodNotifySubscribe     = "notify/subscribe"
	MethodNotifySubscriptions = "notify/subscriptions"
	MethodNotifyUpdate        = "notify/update"
	MethodNotifyUnsubscribe   = "notify/unsubscribe"
	MethodDeviceList          = "device/list"
	MethodDeviceRevoke        = "device/revoke"
	MethodDeviceRename        = "device/rename"
	MethodGitStatus           = "git/status"
	MethodGitDiff             = "git/diff"
	MethodGitStage            = "git/stage"
	MethodGitUnstage          = "git/unstage"
	MethodGitDiscard          = "git/discard"
	MethodGitCommit           = "git/commit"
	MethodGitPush             = "git/push"
	MethodGitPull             = "git/pull"
	MethodGitBranches         = "git/branches"
	MethodGitCheckout         = "git/checkout"
	MethodGitBranchDelete     = "git/branch/delete"
	MethodGitLog              = "git/log"
	MethodGitInit             = "git/init"
	MethodGitRemoteAdd        = "git/remote/add"
	MethodGitUpstreamSet      = "git/upstream/set"
)

// RoutedMethods must carry agent_type for deterministic routing.
var RoutedMethods = []string{
	MethodSessionStart, MethodSessionSend, MethodSessionStop, MethodSessionInput, MethodSessionRespond,
}

// MethodSpec describes one client→server method for the OpenRPC document.
// Params and Result are zero values of the Go types on the wire.
type MethodSpec struct {
	Name    string
	Summary string
	Params  any
	Result  any // nil for notifications (no reply)
	Errors  []int64
}

// EventSpec describes one server→client notification.
type EventSpec struct {
	Type    string // method is EventPrefix+Type
	Summary string
	Params  any
}

var (
	sessionErrs   = []int64{CodeInvalidParams, CodeInternalError, CodeSessionNotFound, CodeWorkspaceNotFound}
	workspaceErrs = []int64{CodeInvalidParams, CodeWorkspaceNotFound}
	// subscribeErrs: InternalError when the system refuses to watch the
	// workspace's transcripts (data.reason names the kernel limit).
	subscribeErrs = []int64{CodeInvalidParams, CodeInternalError, CodeWorkspaceNotFound}
	// filesErrs: InvalidPath for a path that does not exist, is of the
	// wrong kind or reaches into .git; PathOutside for one that leads out.
	filesErrs = []int64{CodeInvalidParams, CodeWorkspaceNotFound, CodeInvalidPath, CodePathOutside}
	// gitReadErrs: the read methods answer a folder outside any repository
	// with NotGitRepo; the writing ones with success:false (and the same
	// words in error), which the app's wizard reads.
	gitReadErrs  = []int64{CodeInvalidParams, CodeInternalError, CodeWorkspaceNotFound, CodeNotGitRepo}
	gitWriteErrs = []int64{CodeInvalidParams, CodeInternalError, CodeWorkspaceNotFound}
	gitPathErrs  = []int64{CodeInvalidParams, CodeInternalError, CodeWorkspaceNotFound, CodeInvalidPath, CodePathOutside}
)

// acting adds what a method that changes something can also answer: a
// device with the watch scope may not call it. server's dispatch table
// declares which methods act; a test holds the two together.
func acting(codes ...int64) []int64 { return append(codes, CodeForbidden) }

// Methods lists every method clients may call, in documentation order.
var Methods = []MethodSpec{
	{MethodInitialize, "Open the protocol on this connection; returns the runtime registry.", InitializeParams{}, InitializeResult{}, []int64{CodeInvalidRequest}},
	{MethodInitialized, "Notification after initialize; ignored.", InitializedParams{}, nil, nil},
	{MethodDiscover, "The OpenRPC document of this server.", DiscoverParams{}, DiscoverResult{}, nil},

	{MethodWorkspaceList, "List workspaces.", WorkspaceListParams{}, WorkspaceListResult{}, nil},
	{MethodWorkspaceAdd, "Add a directory as a workspace (idempotent for a path).", WorkspaceAddParams{}, Workspace{}, acting(CodeInvalidParams, CodeInvalidPath)},
	{MethodWorkspaceRemove, "Forget a workspace; sessions and transcripts are untouched.", WorkspaceIDParams{}, SuccessResult{}, acting(workspaceErrs...)},
	{MethodWorkspaceGet, "One workspace.", WorkspaceIDParams{}, Workspace{}, workspaceErrs},
	{MethodWorkspaceSubscribe, "Receive a workspace's session lifecycle events.", WorkspaceIDParams{}, SubscribeResult{}, subscribeErrs},
	{MethodWorkspaceUnsubscribe, "Stop receiving a workspace's session lifecycle events.", WorkspaceIDParams{}, SubscribeResult{}, workspaceErrs},
	{MethodWorkspaceSubscriptions, "This connection's workspace subscriptions.", EmptyParams{}, SubscriptionsResult{}, nil},
	{MethodWorkspaceSubscribeAll, "Subscribe to every workspace.", EmptyParams{}, SubscribeResult{}, []int64{CodeInternalError}},
	{MethodWorkspaceDiscover, "Git repositories under the given folders (or ~/Projects, ~/Code, ~/src…) that could become workspaces; cached.", RepoDiscoverParams{}, RepoDiscoverResult{}, []int64{CodeInvalidParams}},
	{MethodWorkspaceStatus, "A workspace's sessions and git state, and what this connection watches there.", WorkspaceIDParams{}, WorkspaceStatusResult{}, workspaceErrs},

	{MethodFilesList, "One page of a workspace directory's listing: directories, then files.", FilesListParams{}, FilesListResult{}, filesErrs},
	{MethodFileGet, "A workspace file's content (the first MiB; base64 when binary).", FileGetParams{}, FileGetResult{}, filesErrs},
	{MethodSearch, "Fuzzy search over a workspace's file paths (ignored files left out).", SearchParams{}, SearchResult{}, append(filesErrs, CodeInternalError)},
	{MethodFocus, "Say which session this client shows now (after each watch), or that its page is hidden; answers who else views it.", FocusParams{}, FocusResult{}, workspaceErrs},

	{MethodSessionStart, "Start a session, resume a historical one, or attach to a running one.", SessionStartParams{}, SessionStartResult{}, acting(append(sessionErrs, CodeSessionBusy, CodeInvalidPath, CodePathOutside)...)},
	{MethodSessionSend, "Send the next user turn.", SessionSendParams{}, SessionSendResult{}, acting(append(sessionErrs, CodeSessionBusy, CodeInvalidPath)...)},
	{MethodSessionStop, "Interrupt the running turn and end the session's process.", SessionStopParams{}, SessionStopResult{}, acting(sessionErrs...)},
	{MethodSessionInput, "Answer the pending prompt with a key or text; escape with nothing pending interrupts the running turn.", SessionInputParams{}, StatusResult{}, acting(append(sessionErrs, CodeRequestNotFound)...)},
	{MethodSessionRespond, "Answer a permission request or a question.", SessionRespondParams{}, StatusResult{}, acting(append(sessionErrs, CodeRequestNotFound)...)},
	{MethodSessionState, "A session's exact state.", SessionStateParams{}, SessionStateResult{}, sessionErrs},
	{MethodSessionConfigure, "Change a session's model, effort or permission mode from its next turn on; a value the runtime does not offer is refused with what it does offer.", SessionConfigureParams{}, SessionConfigureResult{}, acting(append(sessionErrs, CodeSessionBusy)...)},
	{MethodSessionTurns, "A session's turns that changed files in its workspace, oldest first.", TurnsParams{}, TurnsResult{}, sessionErrs},
	{MethodSessionTurnDiff, "What one turn changed: its files and unified diff.", TurnRefParams{}, TurnDiffResult{}, sessionErrs},
	{MethodSessionRevert, "Restore the files a turn changed to their state before it; refused over files changed since unless forced, and while the session is in a turn.", RevertParams{}, RevertResult{}, acting(append(sessionErrs, CodeSessionBusy, CodeRevertConflict)...)},
	{MethodQueueList, "A session's follow-up queue: the prompts sent during a turn, waiting for theirs; works after a restart, before the session runs again.", QueueParams{}, QueueResult{}, sessionErrs},
	{MethodQueueUpdate, "Replace a queued prompt's text.", QueueUpdateParams{}, QueueResult{}, acting(append(sessionErrs, CodeQueueItemGone)...)},
	{MethodQueueMove, "Move a queued prompt to another place in the queue.", QueueMoveParams{}, QueueResult{}, acting(append(sessionErrs, CodeQueueItemGone)...)},
	{MethodQueueRemove, "Remove a queued prompt.", QueueItemParams{}, QueueResult{}, acting(append(sessionErrs, CodeQueueItemGone)...)},
	{MethodQueueClear, "Remove every queued prompt.", QueueParams{}, QueueResult{}, acting(sessionErrs...)},
	{MethodQueueResume, "Drain a paused queue again: its next prompt runs now if no turn runs (resuming the session's process if needed).", QueueParams{}, QueueResult{}, acting(append(sessionErrs, CodeSessionBusy, CodeInvalidPath)...)},
	{MethodSessionSteer, "Send input into the running turn, where the runtime can take it (its registry record says supportsSteering); refused with -32602 where it cannot.", SteerParams{}, SteerResult{}, acting(append(sessionErrs, CodeNoTurn)...)},

	{MethodHistory, "A workspace's sessions, newest first, including those run outside cdevd.", HistoryParams{}, HistoryResult{}, sessionErrs},
	{MethodMessages, "A page of a session's transcript.", MessagesParams{}, MessagesResult{}, sessionErrs},
	{MethodWatch, "Receive a session's events, replaying from since_seq.", WatchParams{}, WatchResult{}, sessionErrs},
	{MethodUnwatch, "Stop receiving a session's events.", UnwatchParams{}, UnwatchResult{}, nil},
	{MethodActivate, "Mark a session as this client's current one in a workspace.", SessionRefParams{}, ActivateResult{}, acting(sessionErrs...)},
	{MethodDelete, "Move a session's transcript to the trash (refused while it runs).", SessionRefParams{}, DeleteResult{}, acting(append(sessionErrs, CodeSessionBusy)...)},

	{MethodNotifyTest, "Send a test notification through every sink and say how each went.", EmptyParams{}, NotifyTestResult{}, acting()},
	{MethodNotifyVAPIDKey, "The key a browser subscribes to push with.", EmptyParams{}, NotifyVAPIDKeyResult{}, []int64{CodeInternalError}},
	{MethodNotifySubscribe, "Register this device's push subscription, with the kinds it wants.", NotifySubscribeParams{}, NotifySubscription{}, []int64{CodeInvalidParams, CodeInternalError}},
	{MethodNotifySubscriptions, "The registered push subscriptions.", EmptyParams{}, NotifySubscriptionsResult{}, []int64{CodeInternalError}},
	{MethodNotifyUpdate, "Change the kinds a push subscription wants.", NotifyUpdateParams{}, NotifySubscription{}, []int64{CodeInvalidParams, CodeInternalError}},
	{MethodNotifyUnsubscribe, "Remove a push subscription.", NotifyUnsubscribeParams{}, SuccessResult{}, []int64{CodeInvalidParams, CodeInternalError}},

	{MethodUsageLimits, "The plan's rate-limit windows each runtime's CLI last reported.", UsageLimitsParams{}, UsageLimitsResult{}, []int64{CodeInvalidParams}},
	{MethodUsageSummary, "Tokens per day, workspace and runtime, summed from the stored transcripts.", UsageSummaryParams{}, UsageSummaryResult{}, []int64{CodeInvalidParams, CodeInternalError, CodeWorkspaceNotFound}},

	{MethodDeviceList, "The paired devices (control scope).", EmptyParams{}, DeviceListResult{}, acting()},
	{MethodDeviceRevoke, "Forget a device: its connections close at once and its tokens are refused (control scope).", DeviceIDParams{}, SuccessResult{}, acting(CodeInvalidParams)},
	{MethodDeviceRename, "Rename a device (control scope).", DeviceRenameParams{}, Device{}, acting(CodeInvalidParams)},

	{MethodGitStatus, "The workspace repository's branch and changed files.", GitWorkspaceParams{}, GitStatusResult{}, gitReadErrs},
	{MethodGitDiff, "A file's diff (the staged one when the working tree has none), or every changed file's.", GitDiffParams{}, GitDiffResult{}, append(gitReadErrs, CodeInvalidPath, CodePathOutside)},
	{MethodGitStage, "Stage files (new, changed and deleted alike).", GitPathsParams{}, GitPathsResult{}, acting(gitPathErrs...)},
	{MethodGitUnstage, "Take files out of the index, keeping their changes.", GitPathsParams{}, GitPathsResult{}, acting(gitPathErrs...)},
	{MethodGitDiscard, "Throw away files' unstaged changes; an untracked file is deleted.", GitPathsParams{}, GitPathsResult{}, acting(gitPathErrs...)},
	{MethodGitCommit, "Commit what is staged, and push when asked.", GitCommitParams{}, GitCommitResult{}, acting(gitWriteErrs...)},
	{MethodGitPush, "Push the current branch (setting its upstream when it has none).", GitPushParams{}, GitPushResult{}, acting(gitWriteErrs...)},
	{MethodGitPull, "Pull the current branch's upstream (merge, or rebase).", GitPullParams{}, GitPullResult{}, acting(gitWriteErrs...)},
	{MethodGitBranches, "Local and remote-tracking branches.", GitWorkspaceParams{}, GitBranchesResult{}, gitReadErrs},
	{MethodGitCheckout, "Switch branch, or create one.", GitCheckoutParams{}, GitCheckoutResult{}, acting(gitWriteErrs...)},
	{MethodGitBranchDelete, "Delete a local branch, and its remote one when asked.", GitBranchDeleteParams{}, GitBranchDeleteResult{}, acting(gitWriteErrs...)},
	{MethodGitLog, "A page of HEAD's history, with the commit graph when asked.", GitLogParams{}, GitLogResult{}, gitReadErrs},
	{MethodGitInit, "Make the workspace's folder a repository, with a first commit when asked.", GitInitParams{}, GitInitResult{}, acting(gitWriteErrs...)},
	{MethodGitRemoteAdd, "Add a remote, and fetch it when asked.", GitRemoteAddParams{}, GitRemoteAddResult{}, acting(gitWriteErrs...)},
	{MethodGitUpstreamSet, "Set a branch's upstream.", GitUpstreamSetParams{}, GitResult{}, acting(gitWriteErrs...)},
}

// Events lists every notification the server sends.
var Events = []EventSpec{
	{EventMessage, "A complete message (every runtime).", MessageEvent{}},
	{EventMessageDelta, "Live tokens of a message being written.", MessageDeltaEvent{}},
	{EventPermission, "A permission request.", PermissionEvent{}},
	{EventPermissionResolved, "A permission request or question was answered or cancelled.", PermissionResolvedEvent{}},
	{EventQuestion, "A question for the user.", QuestionEvent{}},
	{EventState, "What the agent is doing now.", StateEvent{}},
	{EventTurnCompleted, "A turn finished.", TurnCompletedEvent{}},
	{EventTurnDiff, "A turn (or a revert) changed files in the session's workspace.", TurnDiffEvent{}},
	{EventQueueChanged, "A session's follow-up queue changed (an item queued, edited, moved, removed or started; cleared, paused or resumed): the whole queue.", QueueChangedEvent{}},
	{EventError, "A turn failed, or the session hit an error.", ErrorEvent{}},
	{EventRateLimits, "The session's runtime reported its plan's rate limits, and they changed.", RateLimitsEvent{}},
	{EventContextUsage, "How full the session's context window is, after a model call.", ContextUsageEvent{}},
	{EventSessionStart, "A session started running.", SessionStartEvent{}},
	{EventSessionEnd, "A session's process ended.", SessionEndEvent{}},
	{EventSessionStopped, "A session was stopped.", SessionEndEvent{}},
	{EventSessionUpdated, "A workspace session's transcript changed.", SessionUpdatedEvent{}},
	{EventHeartbeat, "Keepalive.", HeartbeatEvent{}},
	{EventSessionJoined, "Another client started viewing the session this client focused.", SessionJoinedEvent{}},
	{EventSessionLeft, "A client stopped viewing the session this client focused.", SessionLeftEvent{}},
	{EventWorkspaceRemoved, "A subscribed workspace was removed.", WorkspaceRemovedEvent{}},
	{EventGitStatusChanged, "A subscribed workspace's git status moved.", GitStatusChangedEvent{}},
	{EventGitOperationCompleted, "A git method changed a subscribed workspace's repository.", GitOperationCompletedEvent{}},
	{EventFileChanged, "A file of a subscribed workspace changed.", FileChangedEvent{}},
}
