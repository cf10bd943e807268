// Package rollout reads Codex's stored threads: the rollout files the CLI
// writes under $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<stamp>-<thread id>.jsonl,
// one JSON line {timestamp, type, payload} per event.
//
// Unlike Claude's transcripts, rollouts are not filed by working directory:
// the first line (session_meta) records the cwd, so List walks every date
// directory and keeps the rollouts whose cwd is the workspace (compared as
// canonical paths). The workspace of a rollout not seen before is read
// from its first line and remembered by the file's identity, so that only
// the asked workspace's rollouts are indexed. Every directory of the tree
// is watched (fswatch.Gen, up to maxWatchedDirs): while none changed, List
// returns its last result for the workspace without reading anything;
// otherwise (or when watching is refused) its cost grows with the number
// of date directories and rollouts (one stat each, relative to its open
// directory, plus a read of what a rollout of the workspace appended since
// the last call). A thread's rollout is looked for first in the date
// directories its UUIDv7 id names.
//
// ToMessage turns one line into the runtime-neutral rpc.Message. Prompts and
// answers come from event_msg/item_completed (UserMessage, AgentMessage):
// they hold only what the user typed, with the ids the app-server's live
// item notifications carry, whereas response_item messages also hold the
// context Codex injects (developer instructions, <environment_context>,
// AGENTS.md). Commands and file changes come from their thread items
// (CommandExecution, FileChange: the call and its outcome, under the call
// id), as app-server streams them live, so that the codex adapter's live
// messages equal the stored ones (ToolMessage, NewMessage); reasoning comes
// from response_item lines (its id is the same).
//
// Store keeps, per rollout, the byte offsets of its message lines, extended
// from the old end when the file grows, so paging never re-reads a whole
// rollout. Lines are classified by their top-level members, not decoded
// (classify); a big rollout is indexed in parts on every core, and its index
// persisted (WithCacheDir) for the next daemon. Tail follows one rollout
// through the daemon's shared watcher (internal/fswatch).
package rollout
