// Package transcript reads Claude Code's stored sessions: the JSONL files the
// CLI writes under ~/.claude/projects/<encoded cwd>/<session id>.jsonl.
//
// ToMessage turns a Line (of a transcript, or of the CLI's stream-json
// stdout: the same shape) into an rpc.Message. Store is the history store
// (runtimes/history) over that format, with its index of a transcript.
package transcript
