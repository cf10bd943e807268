// Package rpc is cdevd's wire contract: JSON-RPC method names, the params,
// results and event payloads of every method, and the error codes clients
// rely on, with a few helpers on them. It imports nothing of cdevd, so that
// the OpenRPC document, the server and outside clients all read one
// definition.
//
// Conventions the OpenRPC generator relies on: a field tagged `omitempty` is
// optional, every other field is required; a `doc:"…"` tag is its
// description; `format:"date-time"` marks RFC 3339 times; `enum:"a,b"` lists a
// string field's values (`known:"a,b"`: the values with a meaning in an open
// set); `minimum:"n"` and `maximum:"n"` bound an integer; `schema:"object"`, `schema:"array"` (of objects) or `schema:"any"` types a
// json.RawMessage; a named string type with an Enum method lists its values.
package rpc
