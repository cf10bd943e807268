// Package search finds a workspace's files by a fuzzy match on their paths
// (repository/search, the iOS app's Explorer search).
//
// The first query of a workspace builds its Index: in a git work tree the
// paths `git ls-files -co --exclude-standard` lists (tracked, and untracked
// but not ignored), elsewhere a walk that leaves .git out. Later queries
// reuse it: a query scans every path in memory, which on 100,000 paths takes
// a few milliseconds, so no trigram or trie is needed. The index is kept
// fresh through the daemon's one inotify instance (internal/fswatch): each
// directory that holds an indexed path is watched, and any change marks the
// index stale and rebuilds it in the background after a short quiet time,
// while queries go on answering from the previous one. An index unused for
// a while is dropped with its watches.
package search
