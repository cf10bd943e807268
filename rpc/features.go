package rpc

// Workspace features: what a client can do with a workspace beyond its
// sessions, each made of methods. initialize lists in
// capabilities.features those whose every method this server answers, so
// that a client knows before calling (the iOS app hides a tab the server
// cannot fill). A new feature adds its entry here; the list a server
// reports follows from its method table, never from a literal.
type Feature struct {
	Name    string
	Methods []string
}

// Feature names.
const (
	FeatureFiles    = "files"
	FeatureSearch   = "search"
	FeaturePresence = "presence"
	FeatureStatus   = "workspace_status"
	FeatureDiscover = "discover"
	FeatureGit      = "git"
)

// Features lists every workspace feature, in the order initialize reports
// them.
var Features = []Feature{
	{FeatureFiles, []string{MethodFilesList, MethodFileGet}},
	{FeatureSearch, []string{MethodSearch}},
	{FeaturePresence, []string{MethodFocus}},
	{FeatureStatus, []string{MethodWorkspaceStatus}},
	{FeatureDiscover, []string{MethodWorkspaceDiscover}},
	{FeatureGit, []string{MethodGitStatus, MethodGitDiff, MethodGitStage, MethodGitUnstage, MethodGitDiscard,
		MethodGitCommit, MethodGitPush, MethodGitPull, MethodGitBranches, MethodGitCheckout, MethodGitBranchDelete,
		MethodGitLog, MethodGitInit, MethodGitRemoteAdd, MethodGitUpstreamSet}},
}
