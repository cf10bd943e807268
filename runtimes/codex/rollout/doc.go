// Package rollout reads Codex's stored threads, the rollout files under
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<stamp>-<thread id>.jsonl, one
// JSON line {timestamp, type, payload} per event: a format on the shared
// history store (runtimes/history) in its date-tree layout, where the first
// line (session_meta) records the workspace.
//
// Prompts and answers come from event_msg/item_completed: they hold only
// what the user typed, with the ids of the app-server's live item
// notifications (response_item messages also hold the context Codex
// injects). Commands and file changes come from their thread items too, so
// that the codex adapter's live messages equal the stored ones (ToolMessage,
// NewMessage); reasoning from response_item lines. A line is read into
// Line by its schemas (jsonl.Schema), by encoding/json where they refuse it.
package rollout
