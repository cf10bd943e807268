// Package rollout reads Codex's stored threads, the rollouts under
// $CODEX_HOME/sessions/YYYY/MM/DD (one JSON line {timestamp, type, payload}
// per event): a format on the shared history store (runtimes/history).
// Prompts, answers, commands and file changes come from their thread items
// (event_msg/item_completed: what the user typed, without the context Codex
// injects, under the ids of app-server's live items, so that the codex
// adapter's live messages equal the stored ones), reasoning from
// response_item lines.
package rollout
