// Package contracttests is cdevd's over-the-wire contract suite: its tests
// talk to a running cdevd only through the WebSocket, as an outside client
// would, and check everything the server sends against openrpc.json.
//
// By default each test starts cdevd in process (daemon.Start) with a
// temporary home and the scripted runtime, whose CLI is this test binary.
// With CDEVD_CONTRACT_URL and CDEVD_CONTRACT_TOKEN set, the tests that need
// nothing but the wire run against that server instead; the others skip.
//
// Client, RawConn and StartDaemon are exported for other packages'
// end-to-end tests (the real-CLI suites connect the same way).
package contracttests
