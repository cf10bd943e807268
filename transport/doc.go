// Package transport is everything between cdevd's HTTP listener and its
// method handler: the WebSocket upgrade with its host, origin and token
// checks, a JSON-RPC 2.0 layer of its own (so malformed input gets an error
// reply instead of a dropped connection, and batches work), bounded
// concurrent requests, a bounded non-blocking send queue per connection,
// keepalives, health and readiness probes, and Prometheus metrics.
//
// Whoever can reach the port can send bytes before any token check, so
// every cost is bounded: HTTP timeouts and a cap on connections that are
// not WebSockets (Serve), where an idle one gives way to a newcomer and
// requests without the token hold at most a share (listener.go), a cap on
// WebSockets, the frame size, MaxBatch
// requests per batch and MaxReplyBytes per batch reply, requests in flight
// per connection, and the rate of refusal log lines. Every frame sent is
// valid UTF-8, whatever the client or a CLI sent.
//
// A connection costs one goroutine while idle, its reader: a writer
// goroutine exists only while something is queued, keepalives are timers,
// and a reply is written on the goroutine that made it when nothing is
// queued before it. A Handler that implements Inliner has its cheap
// methods answered on the reader itself, with no hand-off at all.
//
// The method implementations live elsewhere and see only Handler and Conn:
// Handle gets each request's method and raw params and returns a result or
// an error (a possibly wrapped *rpc.Error keeps its code and data); Conn
// sends notifications to one client without ever blocking the caller.
package transport
