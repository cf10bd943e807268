// Package contracttests is cdevd's over-the-wire contract suite: its tests
// talk to a running cdevd only through the WebSocket, as an outside client
// would, and check everything the server sends against openrpc.json.
//
// By default each test starts cdevd in process (daemon.Start) with a
// temporary home and the scripted runtime, whose CLI is this test binary.
// With CDEVD_CONTRACT_URL and CDEVD_CONTRACT_TOKEN set, the tests that need
// nothing but the wire run against that server instead; the others skip.
//
// Client is the public client (package client) with the checks around it:
// every frame it sends and receives goes through client.Config.OnFrame to
// be validated and recorded in the wire corpus (testdata/wire), so the
// suite proves the server and the client apps use at once. RawConn speaks
// WebSocket with no client, for the frames no client sends. Client,
// RawConn and StartDaemon are exported for other packages' end-to-end
// tests (the real-CLI suites connect the same way).
package contracttests
