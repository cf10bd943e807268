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
// format: the replay of each file is an index of it (over lineindex.Cache),
// the state of the patch log, each record by where its latest version is
// (a line, or an element of a $set list) with a CRC-32C of its bytes, not
// the bytes; a page reads and converts only its records. A replay reads
// only the members a line's kind and a record's listing need, with the
// shared schema reader (lineReader on jsonl.Schema, encoding/json for any
// other shape), a big file in parts on every core (index.Merge). Records
// hold no pointer: their strings are spans of one byte slice of their
// index (strs.go), their places found by a hash of their id (positions),
// and records written again are deduped in batches (index.dedupe). A file
// that only grew is read from where the last read stopped, any other
// change replays it whole; with a cache directory the replays of big
// files are persisted with their views (saved.go), in tables a restarted
// daemon reads in place: its first page decodes no record (they are
// decoded when the file grows). A replay keeps what its final state
// needs: a $set of the message list drops what it replaces. Each index
// makes its view once (the messages' count and places among the records,
// the tool calls, the first prompt); a page converts only its own records
// to entries, and the list of every message is made only when something
// needs it all.
//
// The listing is the history store's tree layout (history.DateTree):
// tmp/<project>/chats, each file recognised by the projectHash of its
// header, the files of dir's project grouped into sessions (Group: by
// session id, phantoms skipped). A List replays only the files of its
// workspace and small ones: another project's big file is known by its
// first line, remembered by the file's identity and read again when the
// file changes (Gemini rewrites a file in place). While change counts
// (fswatch.Gen) of every folder of the tree say nothing changed since a
// List of the same workspace, its result is returned without reading
// anything. Pages, tails, Has, Trash and Watch find a session's files
// themselves, by the id's first eight characters in their names.
package chats
