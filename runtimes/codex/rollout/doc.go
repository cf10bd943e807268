// Package rollout reads Codex's stored threads: the rollout files the CLI
// writes under $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<stamp>-<thread id>.jsonl,
// one JSON line {timestamp, type, payload} per event. It is a format on the
// shared history store (runtimes/history), in its date-tree layout
// (history.Tree): rollouts are filed by the day their thread was created,
// not by working directory; the first line (session_meta) records the cwd,
// which List compares with the workspace asked.
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
// A rollout's index keeps the places of its message lines, its thread id,
// cwd and first prompt, and each model call's token counts (from the
// token_count lines: TokenCounts). Both readings of a line are schemas
// (jsonl.Schema), with encoding/json (ParseLine) for what they refuse: a
// scan classifies each line by a few short members (classify), a page
// decodes its lines (quickLine).
package rollout
