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
// Store caches the replayed state of each file, keyed by its size and
// modification time; a file that only grew is read from where the last
// read stopped (replaying a patch log needs nothing else), any other change
// re-reads it whole. The state holds, per record, where its latest version
// is in the file (a line, or an element of a $set list) and a checksum, not
// its bytes: a page reads and converts only its records.
package chats
