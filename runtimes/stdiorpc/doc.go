// Package stdiorpc is a bidirectional JSON-RPC 2.0 peer over a child
// process's stdin and stdout, one JSON object per line, for agent CLIs that
// speak it (codex app-server, gemini --acp).
//
// A Peer sends Calls and Notifies to the CLI and receives the CLI's own
// requests (approvals, permission requests) and notifications, delivered in
// arrival order on one goroutine. A request is answered with Request.Reply,
// from any goroutine and at any later time (a user may answer minutes later);
// its id is echoed byte for byte as received.
//
// It is tolerant where the real CLIs are loose: replies and notifications
// without "jsonrpc" (Codex), request id 0, ids that are numbers or strings.
// A line that is not JSON, not a message, too long, or a reply nobody waits
// for is reported through Handlers.OnError and skipped; it never ends the
// connection. When the CLI's stdout ends, every pending Call fails with an
// error that wraps ErrClosed and the cause.
//
// What was read and not yet handled is bounded (Options.MaxQueued): a CLI
// that prints faster than its handlers keep up blocks on its pipe rather
// than grow cdevd's memory, a Call made from a handler still gets its reply
// (see inbox), and Discard drops the backlog of a CLI being stopped.
//
// Why not sourcegraph/jsonrpc2 (used for cdevd's own WebSocket server): its
// Conn closes the whole connection on a line it cannot decode; its ID type
// (uint64 or string) cannot echo every id exactly (a negative id comes back as
// a huge unsigned number, a fractional one is rejected and closes the
// connection); pending calls end with a bare ErrClosed that does not say why;
// a Call abandoned through its context stays in its pending map; and its
// handler runs on the read loop, so a handler that Calls back deadlocks unless
// wrapped in AsyncHandler, which loses the order of notifications. Making it
// fit meant replacing its stream, its error and its dispatch: what was left
// (a pending map and a write lock) is the small part written here. The tests
// in jsonrpc2_test.go pin the first two of those behaviours.
package stdiorpc
