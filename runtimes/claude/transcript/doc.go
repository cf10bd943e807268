// Package transcript reads Claude Code's stored sessions: the JSONL files the
// CLI writes under ~/.claude/projects/<encoded cwd>/<session id>.jsonl.
//
// ToMessage turns one transcript line (or one stream-json stdout line, which
// has the same shape) into the runtime-neutral rpc.Message. Store implements
// runtimes.Transcripts on top of the files: it keeps, per file, the byte
// offsets of its message lines and the facts List reports, and extends them
// from the old end when the file grows, so neither listing nor paging re-reads
// a whole transcript. Indexing classifies a line from its top-level members
// without decoding it (scan.go), in parts on every core for a big file; a
// page's lines are decoded in one pass. With a cache directory, the indexes
// of big transcripts outlive a restart (lineindex.Cache.Persist). Tail follows
// one file through the daemon's shared watcher (internal/fswatch).
package transcript
