// Package files serves a workspace's files to clients (the iOS app's
// Explorer, the console's file browser): one directory's listing, one
// file's content, and the rules they share.
//
// Every path a client gives goes through workspaces.Workspace.Resolve, so
// that a symlink cannot lead out of the workspace, and is then refused if
// it reaches into .git: git's internals (objects, config with credentials
// in remote URLs, hooks) are not a workspace's content. Content is capped
// (MaxContent) and read no further, so that a 200 MB file costs what a
// 1 MiB one does; binary content comes base64. Files that commonly hold
// secrets are flagged (Sensitive); whether a client may read them is the
// server's decision, not this package's.
package files
