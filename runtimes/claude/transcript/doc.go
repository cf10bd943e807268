// Package transcript reads Claude Code's stored sessions: the JSONL files the
// CLI writes under ~/.claude/projects/<encoded cwd>/<session id>.jsonl.
//
// A line (Line) is read by the shared schema walker (internal/jsonl), and
// ToMessage turns one (from a transcript, or the CLI's stream-json stdout,
// which has the same shape) into the runtime-neutral rpc.Message. Store is
// the shared history store (runtimes/history) over that format: its index
// keeps where a transcript's messages are and what List reports of it.
package transcript
