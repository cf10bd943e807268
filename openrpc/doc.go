// Package openrpc builds cdevd's OpenRPC 1.3 document from the Go wire types
// in package rpc, so the contract clients generate code from cannot drift from
// the code the server runs.
//
// Generate reflects rpc.Methods and rpc.Events following the tag conventions
// documented in package rpc. The result is committed as openrpc.json
// (regenerate with `go generate ./openrpc`), embedded as Document and served
// by rpc.discover; a test fails while the committed file is stale.
//
// Server notifications are listed as methods named event/<type> without a
// result and marked "x-notification": true, "x-direction": "server-to-client".
//
// Validator checks params, results and notifications against a document; the
// contract tests use it on everything the server sends.
package openrpc

//go:generate go run ./gen -d .
