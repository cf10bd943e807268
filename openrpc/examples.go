package openrpc

import (
	"encoding/json"
	"fmt"

	"github.com/cdevd/cdevd/rpc"
)

type examplePairing struct {
	Name   string        `json:"name"`
	Params []exampleItem `json:"params"`
	Result *exampleItem  `json:"result,omitempty"`
}

type exampleItem struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// Example is one call of a method: typed params and, for a call, the result.
type Example struct {
	Params any
	Result any // nil for a notification
}

// The ids and path the examples use. A test runs every example against a
// live server, putting the live ids in their place.
const (
	ExampleWorkspaceID = "ws_3f9a1c2e7b4d5a60"
	ExamplePath        = "/home/dev/code/app"
	ExampleSessionID   = "8c2f3b1e-5d4a-4c7e-9f1a-2b3c4d5e6f70"
	ExampleRequestID   = "perm-1"
	ExampleQueueID     = "5e0b7c1a-2f3d-4a6b-8c9d-0e1f2a3b4c5d"
	ExampleClientID    = "owner:c_7d1e9a"
	ExampleEpoch       = "e_5b0c2d"
	ExampleDeviceID    = "dev_4KQ7Z2M9XW3B"
	exampleTime        = "2026-01-15T09:30:12.345Z"
	// ExampleSubscriptionID is notify.SubscriptionID of examplePush's endpoint.
	ExampleSubscriptionID = "k-Ei32ruu3mq5qHY"
)

// examplePush is a browser's push subscription (a real P-256 point: the
// live test registers it).
var examplePush = rpc.NotifySubscribeParams{Endpoint: "https://fcm.googleapis.com/fcm/send/example-device",
	P256dh: "BA-lopzkT0y0NXNoTPUw3GjyiTi4y1zcQyuALo6iG1p7Pys6fN57ljGdK-FaDN1ziNBrMv4D2gv-91ych8tnthw",
	Auth:   "n2ocoGZ3vnQDiZz6AiUpmQ", Kinds: []string{"permission", "question"}, Device: "Firefox on the laptop"}

var exampleSubscription = rpc.NotifySubscription{ID: ExampleSubscriptionID, Device: "Firefox on the laptop",
	Kinds: []string{"permission", "question"}, Created: exampleTime}

var exampleRuntime = rpc.Runtime{
	ID: "claude", DisplayName: "Claude Code", Status: rpc.RuntimeActive,
	SessionListSource: rpc.ListWorkspaceHistory, SessionMessagesSource: rpc.ScopeWorkspace, SessionWatchSource: rpc.ScopeWorkspace,
	SupportsResume: true, SupportsInteractiveQuestions: true, SupportsPermissions: true, SupportsHistory: true,
	SupportsConfigure: true,
	PermissionModes:   []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionAcceptEdits, rpc.PermissionBypass, rpc.PermissionPlan, rpc.PermissionInteractive},
	Attachments:       []rpc.AttachmentKind{rpc.AttachImage, rpc.AttachFile},
	Methods: rpc.RuntimeMethods{History: rpc.MethodHistory, Messages: rpc.MethodMessages, Watch: rpc.MethodWatch,
		Unwatch: rpc.MethodUnwatch, Start: rpc.MethodSessionStart, Send: rpc.MethodSessionSend, Stop: rpc.MethodSessionStop,
		Input: rpc.MethodSessionInput, Respond: rpc.MethodSessionRespond, State: rpc.MethodSessionState,
		Configure: rpc.MethodSessionConfigure},
	Availability: rpc.Availability{Installed: true, Version: "2.1.197"},
}

var (
	exampleUsedPercent = 92.0
	exampleTokens      = rpc.TokenTotals{InputTokens: 18250, OutputTokens: 2140, CacheReadInputTokens: 96000, Messages: 14}
)

var exampleServerInfo = rpc.ServerInfo{Name: "cdevd", Version: "1.0.0", ID: "3f9c1b0e5a7d4c2e8b6a9f1d0c3e5a7b",
	Hostname: "devbox"}

var exampleWorkspace = rpc.Workspace{ID: ExampleWorkspaceID, Name: "app", Path: ExamplePath, CreatedAt: exampleTime}

// Examples pairs every method of rpc.Methods with an example call.
var Examples = map[string]Example{
	rpc.MethodInitialize: {
		rpc.InitializeParams{ProtocolVersion: rpc.ProtocolVersion, ClientInfo: &rpc.ClientInfo{Name: "my-client", Version: "0.1.0"}},
		rpc.InitializeResult{ProtocolVersion: rpc.ProtocolVersion, ServerInfo: exampleServerInfo,
			ServerInfoSnake: exampleServerInfo, ClientID: ExampleClientID, Epoch: ExampleEpoch,
			Device: rpc.DeviceInfo{ID: "owner", Name: "owner", Scope: "control"},
			Capabilities: rpc.ServerCapabilities{SupportedAgents: []string{"claude"},
				Features: []string{rpc.FeatureFiles, rpc.FeatureSearch, rpc.FeaturePresence, rpc.FeatureStatus, rpc.FeatureDiscover, rpc.FeatureGit},
				RuntimeRegistry: rpc.RuntimeRegistry{
					SchemaVersion: rpc.RegistrySchemaVersion, GeneratedAt: exampleTime, DefaultRuntime: "claude",
					Routing:  rpc.Routing{AgentTypeField: "agent_type", DefaultAgentType: "claude", RequiredOnMethods: rpc.RoutedMethods},
					Runtimes: []rpc.Runtime{exampleRuntime}}}},
	},
	rpc.MethodInitialized: {rpc.InitializedParams{}, nil},
	rpc.MethodDiscover: {rpc.DiscoverParams{}, map[string]any{"openrpc": "1.3.2",
		"info":    map[string]any{"title": "cdevd", "description": "…", "version": rpc.ProtocolVersion, "license": map[string]any{"name": "Proprietary"}},
		"servers": []any{}, "methods": []any{}, "components": map[string]any{"schemas": map[string]any{}, "errors": map[string]any{}},
		"x-notifications": []any{}, "x-schemas": map[string]any{}, "x-error-data": map[string]any{}}},

	rpc.MethodWorkspaceAdd:           {rpc.WorkspaceAddParams{Path: ExamplePath}, exampleWorkspace},
	rpc.MethodWorkspaceList:          {rpc.WorkspaceListParams{}, rpc.WorkspaceListResult{Workspaces: []rpc.Workspace{exampleWorkspace}}},
	rpc.MethodWorkspaceGet:           {rpc.WorkspaceIDParams{WorkspaceID: ExampleWorkspaceID}, exampleWorkspace},
	rpc.MethodWorkspaceSubscribe:     {rpc.WorkspaceIDParams{WorkspaceID: ExampleWorkspaceID}, rpc.SubscribeResult{Success: true, WorkspaceID: ExampleWorkspaceID, Subscribed: []string{ExampleWorkspaceID}}},
	rpc.MethodWorkspaceSubscriptions: {rpc.EmptyParams{}, rpc.SubscriptionsResult{Workspaces: []string{ExampleWorkspaceID}}},
	rpc.MethodWorkspaceSubscribeAll:  {rpc.EmptyParams{}, rpc.SubscribeResult{Success: true, Subscribed: []string{ExampleWorkspaceID}}},
	rpc.MethodWorkspaceUnsubscribe:   {rpc.WorkspaceIDParams{WorkspaceID: ExampleWorkspaceID}, rpc.SubscribeResult{Success: true, WorkspaceID: ExampleWorkspaceID, Subscribed: []string{}}},
	rpc.MethodWorkspaceRemove:        {rpc.WorkspaceIDParams{WorkspaceID: ExampleWorkspaceID}, rpc.SuccessResult{Success: true}},

	rpc.MethodFilesList: {rpc.FilesListParams{WorkspaceID: ExampleWorkspaceID, Limit: 500},
		rpc.FilesListResult{Directory: "", TotalFiles: 1, TotalDirectories: 1,
			Directories: []rpc.DirEntry{{Path: "src", Name: "src", FileCount: 1, LastModified: exampleTime}},
			Files: []rpc.FileEntry{{Path: "README.md", Name: "README.md", Extension: "md", SizeBytes: 16,
				ModifiedAt: exampleTime}},
			Pagination: rpc.Pagination{Limit: 500}}},
	rpc.MethodFileGet: {rpc.FileGetParams{WorkspaceID: ExampleWorkspaceID, Path: "README.md"},
		rpc.FileGetResult{Path: "README.md", Content: "# app\n\nHello.\n", Encoding: rpc.EncodingUTF8, Size: 16}},
	rpc.MethodSearch: {rpc.SearchParams{Query: "readme", Mode: "fuzzy", Limit: 50, ExcludeBinaries: true},
		rpc.SearchResult{Query: "readme", Mode: "fuzzy", WorkspaceID: ExampleWorkspaceID, Total: 1, ElapsedMS: 0.4,
			Results: []rpc.SearchHit{{Path: "README.md", Name: "README.md", Extension: "md", SizeBytes: 16,
				ModifiedAt: exampleTime, MatchScore: 87}}}},
	rpc.MethodFocus: {rpc.FocusParams{WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID},
		rpc.FocusResult{Success: true, WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID, ViewerCount: 1,
			OtherViewers: []string{}}},
	rpc.MethodWorkspaceStatus: {rpc.WorkspaceIDParams{WorkspaceID: ExampleWorkspaceID},
		rpc.WorkspaceStatusResult{WorkspaceID: ExampleWorkspaceID, WorkspaceName: "app", Path: ExamplePath,
			Sessions: []rpc.WorkspaceSession{{ID: ExampleSessionID, WorkspaceID: ExampleWorkspaceID, AgentType: "claude",
				Status: rpc.StatusRunning, Viewers: []string{ExampleClientID}}},
			ActiveSessionCount: 1, HasActiveSession: true, IsBeingWatched: true, WatchedSessionID: ExampleSessionID}},
	rpc.MethodWorkspaceDiscover: {rpc.RepoDiscoverParams{Paths: []string{ExamplePath}},
		rpc.RepoDiscoverResult{Repositories: []rpc.DiscoveredRepo{{Name: "app", Path: ExamplePath,
			RemoteURL: "https://github.com/dev/app.git", LastModified: exampleTime}}, Count: 1, ElapsedMS: 3.1,
			ScannedPaths: []string{ExamplePath}, SkippedPaths: []string{}}},
	rpc.MethodSessionStart: {rpc.SessionStartParams{WorkspaceID: ExampleWorkspaceID, AgentType: "claude"},
		rpc.SessionStartResult{SessionID: ExampleSessionID, WorkspaceID: ExampleWorkspaceID, AgentType: "claude", Status: rpc.StartStarted, Source: "new"}},
	rpc.MethodSessionSend: {rpc.SessionSendParams{SessionID: ExampleSessionID, Prompt: "Explain this repository.", AgentType: "claude"},
		rpc.SessionSendResult{Status: "sent", SessionID: ExampleSessionID, AgentType: "claude", WorkspaceID: ExampleWorkspaceID}},
	rpc.MethodSessionRespond: {rpc.SessionRespondParams{SessionID: ExampleSessionID, Type: rpc.RespondPermission, Response: "yes", RequestID: ExampleRequestID, AgentType: "claude"},
		rpc.StatusResult{Status: "responded"}},
	rpc.MethodSessionInput: {rpc.SessionInputParams{SessionID: ExampleSessionID, Key: "enter", AgentType: "claude"},
		rpc.StatusResult{Status: "sent"}},
	rpc.MethodSessionConfigure: {rpc.SessionConfigureParams{SessionID: ExampleSessionID, Model: "sonnet", Effort: "low", AgentType: "claude"},
		rpc.SessionConfigureResult{SessionID: ExampleSessionID, AgentType: "claude", Model: "sonnet", Effort: "low", Applies: "next_turn"}},
	rpc.MethodSessionState: {rpc.SessionStateParams{SessionID: ExampleSessionID, AgentType: "claude"},
		rpc.SessionStateResult{SessionID: ExampleSessionID, WorkspaceID: ExampleWorkspaceID, AgentType: "claude",
			Status: rpc.StatusRunning, Activity: rpc.ActivityIdle, StartedAt: exampleTime, LastActive: exampleTime,
			IsRunning: true, Epoch: ExampleEpoch, LastSeq: 12, Model: "sonnet", Effort: "low"}},
	rpc.MethodSessionTurns: {rpc.TurnsParams{SessionID: ExampleSessionID},
		rpc.TurnsResult{SessionID: ExampleSessionID, Turns: []rpc.TurnSummary{{Turn: 1,
			Files: []rpc.TurnFile{{Path: "README.md", Status: "modified", Additions: 1, Deletions: 1}}}}}},
	rpc.MethodSessionTurnDiff: {rpc.TurnRefParams{SessionID: ExampleSessionID, Turn: 1},
		rpc.TurnDiffResult{SessionID: ExampleSessionID, TurnDiff: rpc.TurnDiff{Turn: 1,
			Files: []rpc.TurnFile{{Path: "README.md", Status: "modified", Additions: 1, Deletions: 1}},
			Diff:  "diff --git a/README.md b/README.md\nindex 3b18e51..9f4d96d 100644\n--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n # app\n-Usage.\n+Usage, by the agent.\n"}}},
	rpc.MethodSessionRevert: {rpc.RevertParams{SessionID: ExampleSessionID, Turn: 1},
		rpc.RevertResult{Success: true, SessionID: ExampleSessionID, Files: []string{"README.md"}, Conflicts: []string{}, Turn: 2}},
	rpc.MethodQueueList:    {rpc.QueueParams{SessionID: ExampleSessionID}, exampleQueue(exampleQueueItem)},
	rpc.MethodQueueUpdate:  {rpc.QueueUpdateParams{SessionID: ExampleSessionID, QueueID: ExampleQueueID, Prompt: "then add tests for the parser"}, exampleQueue(exampleQueueItem)},
	rpc.MethodQueueMove:    {rpc.QueueMoveParams{SessionID: ExampleSessionID, QueueID: ExampleQueueID, Position: 1}, exampleQueue(exampleQueueItem)},
	rpc.MethodQueueRemove:  {rpc.QueueItemParams{SessionID: ExampleSessionID, QueueID: ExampleQueueID}, exampleQueue()},
	rpc.MethodQueueClear:   {rpc.QueueParams{SessionID: ExampleSessionID}, exampleQueue()},
	rpc.MethodQueueResume:  {rpc.QueueParams{SessionID: ExampleSessionID}, exampleQueue()},
	rpc.MethodSessionSteer: {rpc.SteerParams{SessionID: ExampleSessionID, Prompt: "use the existing helper instead", AgentType: "codex"}, rpc.SteerResult{Status: "steered", SessionID: ExampleSessionID}},
	rpc.MethodSessionStop: {rpc.SessionStopParams{SessionID: ExampleSessionID, AgentType: "claude"},
		rpc.SessionStopResult{Success: true, Status: "stopped", SessionID: ExampleSessionID, AgentType: "claude"}},

	rpc.MethodHistory: {rpc.HistoryParams{WorkspaceID: ExampleWorkspaceID, AgentType: "claude", Limit: 20},
		rpc.HistoryResult{Sessions: []rpc.HistorySession{{SessionID: ExampleSessionID, AgentType: "claude",
			Summary: "Explain this repository.", MessageCount: 2, LastUpdated: exampleTime, Status: rpc.StatusRunning}}, Total: 1}},
	rpc.MethodMessages: {rpc.MessagesParams{WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID, AgentType: "claude", Limit: 50},
		rpc.MessagesResult{SessionID: ExampleSessionID, Total: 1, Limit: 50, QueryTimeMS: 0.8, Messages: []rpc.PagedMessage{{
			ID: 0, SessionID: ExampleSessionID, Type: rpc.MessageUser, UUID: "0b6d4c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e", Timestamp: exampleTime,
			Message: rpc.MessageBody{Role: "user", Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: "Explain this repository."}}}}}}},
	rpc.MethodWatch: {rpc.WatchParams{WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID, AgentType: "claude"},
		rpc.WatchResult{Status: "watching", Watching: true, WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID, Epoch: ExampleEpoch, LastSeq: 12}},
	rpc.MethodUnwatch: {rpc.UnwatchParams{SessionID: ExampleSessionID, AgentType: "claude"},
		rpc.UnwatchResult{Status: "unwatched", WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID}},
	rpc.MethodActivate: {rpc.SessionRefParams{WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID, AgentType: "claude"},
		rpc.ActivateResult{Success: true, WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID}},
	rpc.MethodDelete: {rpc.SessionRefParams{WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID, AgentType: "claude"},
		rpc.DeleteResult{Status: "deleted", WorkspaceID: ExampleWorkspaceID, SessionID: ExampleSessionID}},

	rpc.MethodNotifyTest: {rpc.EmptyParams{}, rpc.NotifyTestResult{Sinks: []rpc.NotifySinkResult{
		{Sink: "webpush", Type: "webpush", OK: false, Error: "no browser has subscribed: turn notifications on in the console", MS: 0}}}},
	rpc.MethodNotifyVAPIDKey: {rpc.EmptyParams{}, rpc.NotifyVAPIDKeyResult{
		PublicKey: "BC4V68O8BRsab_Sot36-fpuGy4THBjdznE_Hoc7dnV2iXYEQrnO90xTECoiZ2V50Fk63HQVw7BDY6nQVWVSfaLw"}},
	rpc.MethodNotifySubscribe:     {examplePush, exampleSubscription},
	rpc.MethodNotifySubscriptions: {rpc.EmptyParams{}, rpc.NotifySubscriptionsResult{Subscriptions: []rpc.NotifySubscription{exampleSubscription}}},
	rpc.MethodNotifyUpdate: {rpc.NotifyUpdateParams{ID: ExampleSubscriptionID, Kinds: []string{"permission", "question", "error"}},
		rpc.NotifySubscription{ID: ExampleSubscriptionID, Device: "Firefox on the laptop", Kinds: []string{"permission", "question", "error"}, Created: exampleTime}},
	rpc.MethodNotifyUnsubscribe: {rpc.NotifyUnsubscribeParams{ID: ExampleSubscriptionID}, rpc.SuccessResult{Success: true}},
	rpc.MethodUsageLimits: {rpc.UsageLimitsParams{AgentType: "claude"}, rpc.UsageLimitsResult{Runtimes: []rpc.RuntimeLimits{
		{AgentType: "claude", Windows: []rpc.RateLimitWindow{{ID: "five_hour", UsedPercent: &exampleUsedPercent,
			WindowMinutes: 300, ResetsAt: exampleTime, Status: rpc.LimitWarning, UpdatedAt: exampleTime}}}}}},
	rpc.MethodUsageSummary: {rpc.UsageSummaryParams{WorkspaceID: ExampleWorkspaceID, Days: 7}, rpc.UsageSummaryResult{
		From: "2026-01-09", To: "2026-01-15", Days: []rpc.UsageDay{{Date: "2026-01-15", WorkspaceID: ExampleWorkspaceID,
			AgentType: "claude", TokenTotals: exampleTokens}}, Total: exampleTokens, Cost: rpc.CostUnknown}},
	rpc.MethodDeviceList:   {rpc.EmptyParams{}, rpc.DeviceListResult{Devices: []rpc.Device{exampleDevice}}},
	rpc.MethodDeviceRename: {rpc.DeviceRenameParams{DeviceID: ExampleDeviceID, Name: "Anna's iPhone"}, exampleDevice},
	rpc.MethodDeviceRevoke: {rpc.DeviceIDParams{DeviceID: ExampleDeviceID}, rpc.SuccessResult{Success: true}},
	// The git family, in the order the live test runs them: a folder with a
	// README made a repository, a change seen, staged, unstaged, discarded,
	// then committed, pushed to a new remote, pulled, a branch made and
	// deleted, and the history read.
	rpc.MethodGitInit: {rpc.GitInitParams{WorkspaceID: ExampleWorkspaceID, InitialBranch: "main", InitialCommit: true},
		rpc.GitInitResult{Success: true, Branch: "main", CommitSHA: exampleSHA, FilesCommitted: 1, Message: "initialized and committed 1 file(s)"}},
	rpc.MethodGitStatus: {rpc.GitWorkspaceParams{WorkspaceID: ExampleWorkspaceID},
		rpc.GitStatusResult{Branch: "main", Staged: []rpc.GitFile{}, Untracked: []rpc.GitFile{}, Conflicted: []rpc.GitFile{},
			Unstaged: []rpc.GitFile{{Path: "README.md", Status: "M", Additions: intp(1), Deletions: intp(0)}},
			RepoName: "app", RepoRoot: ExamplePath}},
	rpc.MethodGitDiff: {rpc.GitDiffParams{WorkspaceID: ExampleWorkspaceID, Path: "README.md", Staged: false},
		rpc.GitDiffResult{Diffs: []rpc.GitFileDiff{{Path: "README.md",
			Diff: "diff --git a/README.md b/README.md\nindex 3b18e51..a042389 100644\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n # app\n+More.\n"}}}},
	rpc.MethodGitStage: {rpc.GitPathsParams{WorkspaceID: ExampleWorkspaceID, Paths: []string{"README.md"}},
		rpc.GitPathsResult{Success: true, Message: "staged 1 path(s)", StagedCount: 1}},
	rpc.MethodGitUnstage: {rpc.GitPathsParams{WorkspaceID: ExampleWorkspaceID, Paths: []string{"README.md"}},
		rpc.GitPathsResult{Success: true, Message: "unstaged 1 path(s)", UnstagedCount: 1}},
	rpc.MethodGitDiscard: {rpc.GitPathsParams{WorkspaceID: ExampleWorkspaceID, Paths: []string{"README.md"}},
		rpc.GitPathsResult{Success: true, Message: "discarded 1 file(s)", DiscardedCount: 1}},
	rpc.MethodGitCommit: {rpc.GitCommitParams{WorkspaceID: ExampleWorkspaceID, Message: "Add usage", Push: false},
		rpc.GitCommitResult{Success: true, SHA: exampleSHA, Message: "Add usage", FilesCommitted: 1}},
	rpc.MethodGitRemoteAdd: {rpc.GitRemoteAddParams{WorkspaceID: ExampleWorkspaceID, Name: "origin", URL: ExampleRemote, Fetch: true},
		rpc.GitRemoteAddResult{Success: true, Remote: &rpc.GitRemote{Name: "origin", FetchURL: ExampleRemote, PushURL: ExampleRemote, Provider: "github"},
			FetchedBranches: []string{}, Message: "added remote origin and fetched 0 branch(es)"}},
	rpc.MethodGitPush: {rpc.GitPushParams{WorkspaceID: ExampleWorkspaceID, Force: false, SetUpstream: true},
		rpc.GitPushResult{Success: true, Message: "pushed main to origin (2 commit(s))", CommitsPushed: 2}},
	rpc.MethodGitPull: {rpc.GitPullParams{WorkspaceID: ExampleWorkspaceID, Rebase: false},
		rpc.GitPullResult{Success: true, Message: "Already up to date.", ConflictedFiles: []string{}}},
	rpc.MethodGitUpstreamSet: {rpc.GitUpstreamSetParams{WorkspaceID: ExampleWorkspaceID, Branch: "main", Upstream: "origin/main"},
		rpc.GitResult{Success: true, Message: "main now tracks origin/main"}},
	rpc.MethodGitBranches: {rpc.GitWorkspaceParams{WorkspaceID: ExampleWorkspaceID},
		rpc.GitBranchesResult{Current: "main", Upstream: "origin/main", Branches: []rpc.GitBranch{
			{Name: "main", IsCurrent: true, Upstream: "origin/main"}, {Name: "origin/main", IsRemote: true}}}},
	rpc.MethodGitCheckout: {rpc.GitCheckoutParams{WorkspaceID: ExampleWorkspaceID, Branch: "feature", Create: true},
		rpc.GitCheckoutResult{Success: true, Branch: "feature", Message: "switched to feature"}},
	rpc.MethodGitBranchDelete: {rpc.GitBranchDeleteParams{WorkspaceID: ExampleWorkspaceID, Branch: "feature", Force: false, DeleteRemote: false},
		rpc.GitBranchDeleteResult{Success: true, Branch: "feature", Message: "deleted feature"}},
	rpc.MethodGitLog: {rpc.GitLogParams{WorkspaceID: ExampleWorkspaceID, Limit: 50, Graph: true},
		rpc.GitLogResult{Commits: []rpc.GitCommit{{SHA: exampleSHA, ShortSHA: exampleSHA[:7], Subject: "Add usage",
			Author: "Dev", AuthorEmail: "dev@example.com", Date: exampleTime, RelativeDate: "2 hours ago",
			ParentSHAs:    []string{"3b18e512dba79e4c8300dd08aeb37f8e728b8dad"},
			Refs:          []rpc.GitRef{{Name: "HEAD", Type: "head"}, {Name: "main", Type: "branch"}, {Name: "origin/main", Type: "remote"}},
			GraphPosition: &rpc.GitGraphPosition{Column: 0, Lines: []rpc.GitGraphLine{{FromColumn: 0, ToColumn: 0, Type: "straight"}}}}},
			TotalCount: 2, HasMore: true, MaxColumns: 1}},
}

// exampleQueueItem is a prompt waiting in a session's queue.
var exampleQueueItem = rpc.QueueItem{QueueID: ExampleQueueID, Prompt: "then add tests for the parser",
	QueuedAt: exampleTime, QueuedBy: ExampleClientID}

// exampleQueue is a session's queue holding items.
func exampleQueue(items ...rpc.QueueItem) rpc.QueueResult {
	return rpc.QueueResult{SessionID: ExampleSessionID, Queue: rpc.Queue{Items: append([]rpc.QueueItem{}, items...)}}
}

var exampleDevice = rpc.Device{ID: ExampleDeviceID, Name: "Anna's iPhone", Scope: "control",
	CreatedAt: "2026-01-15T09:30:12.000Z", LastSeenAt: "2026-01-15T10:02:40.512Z", LastSeenAddress: "192.168.1.23", Client: "cdev-ios/1.4"}

// ExampleRemote is the git examples' remote; the live test uses a local bare
// repository in its place.
const ExampleRemote = "https://github.com/dev/app.git"

const exampleSHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"

func intp(n int) *int { return &n }

// examplesOf is the document's example pairing of a method: its params by
// name, in the order of the method's params.
func examplesOf(spec rpc.MethodSpec, params []contentDescriptor) ([]examplePairing, error) {
	ex, ok := Examples[spec.Name]
	if !ok {
		return nil, fmt.Errorf("%s has no example in Examples", spec.Name)
	}
	var byName map[string]any
	if err := roundTrip(ex.Params, &byName); err != nil {
		return nil, fmt.Errorf("%s example params: %w", spec.Name, err)
	}
	p := examplePairing{Name: spec.Name + " example", Params: []exampleItem{}}
	for _, d := range params {
		if v, ok := byName[d.Name]; ok {
			p.Params = append(p.Params, exampleItem{Name: d.Name, Value: v})
		}
	}
	if ex.Result != nil {
		var v any
		if err := roundTrip(ex.Result, &v); err != nil {
			return nil, fmt.Errorf("%s example result: %w", spec.Name, err)
		}
		p.Result = &exampleItem{Name: spec.Name + "Result", Value: v}
	}
	return []examplePairing{p}, nil
}

// roundTrip gives v's wire form as plain JSON values.
func roundTrip(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
