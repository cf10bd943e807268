// Package chats reads Gemini CLI's stored sessions: the chat files it writes
// under $HOME/.gemini/tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl.
//
// A chat file is a patch log, not a list of messages. A line holding
// sessionId and projectHash is a header (it can repeat); {"$set":{…}}
// replaces top-level fields, "messages" being the whole message list; any
// other line is a message record, upserted by its id (the last version
// wins, in the position of its first). The workspace is recognised by the
// header's projectHash (the SHA-256 hex of the cwd string), not by the slug,
// so the store reads every tmp/*/chats directory.
//
// One session can have several files: every session/load starts another
// one holding only a header and the synthetic <session_context> message,
// while later prompts go on in the old file. Every start of `gemini --acp`
// also writes a file for a session of its own that never gets a prompt.
// Files without a real user message (phantoms) are skipped; the files of
// one id that have one are merged in order of their start time.
//
// Store is the shared history store (runtimes/history) over Gemini's
// format, in its tree layout (history.DateTree: tmp/<project>/chats, each
// file's project from its header, a session's files found by the id8 in
// their names and grouped by Group). The replay of each file is its index:
// the patch log's final state, each record by where its latest version is
// and a CRC-32C of its bytes, not the bytes (scan.go on jsonl.Schema, index.go; persisted
// and read in place after a restart, saved.go). Each index makes its view
// once (file.go): the messages' places among the records, the tool calls,
// the first prompt; a page converts only its own records, and Tail follows
// the newest file's records, both here, as records are not lines.
package chats
