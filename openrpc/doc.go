// Package openrpc builds cdevd's OpenRPC 1.3 document from the Go wire types
// in package rpc, so the contract clients generate code from cannot drift from
// the code the server runs.
//
// GenerateFiles reflects rpc.Methods and rpc.Events following the tag
// conventions documented in package rpc and writes three files, committed
// next to this package (regenerate with `go generate ./openrpc`; a test fails
// while any is stale):
//
//   - openrpc.json, the document: embedded as Document and served by
//     rpc.discover. Every method lists every error code it can return and
//     one example (Examples, checked against a live server by a test).
//     Server notifications are the methods named event/<type>, marked
//     "x-notification": true and "x-direction": "server-to-client" (every
//     method has an x-direction, so tools can filter on it). Each method's
//     "x-params-schema" names the schema of its whole params object.
//     Schemas that no standard OpenRPC position refers to (event payloads,
//     the ServerNotification union, params objects, error data) live in
//     "x-schemas", so that linters find no unused component; "x-error-data"
//     names the schema of each error's data.
//   - cdevd.schema.json, a plain JSON Schema (draft-07) bundle of every
//     type, for generators such as json-schema-to-typescript and quicktype.
//   - methods.md, a table of the methods for people.
//
// Validator checks params, results, notifications and error data against a
// document; the contract tests use it on everything the server sends.
package openrpc

//go:generate go run ./gen -d .
