// Package scripted is a runtime whose CLI is a scripted fake, for tests that
// need a real runtime without a model.
//
// The adapter is built like a real one: it spawns its CLI through
// runtimes/proc, talks JSON lines over stdin and stdout, and turns them into
// runtimes.Events, so that a crash, a hang, garbage or a huge line are real
// process faults. The CLI is any binary that calls Main, usually the test
// binary itself:
//
//	func TestMain(m *testing.M) {
//		if scripted.IsCLI() {
//			scripted.Main()
//			return
//		}
//		goleak.VerifyTestMain(m)
//	}
//
//	a := scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()})
//
// A turn's prompt is its script. Plain text is answered "echo: <text>" (two
// deltas, then the message). A prompt {"steps":[...]} runs its steps in
// order; each step is an object with one of these keys:
//
//	{"delta":"text"}        a text delta of the message being written
//	{"message":"text"}      a complete assistant message
//	{"thinking":"text"}     a thinking delta, then a thinking message
//	{"permission":{"tool":"Bash","target":"rm -rf x","kind":"bash_command"}}
//	                        asks (unless yolo, bypassPermissions, or allowed
//	                        always before), then says "permission: <decision>"
//	{"question":{"text":"Pick one","options":["red","blue"]}}
//	                        asks, then says "answer: <text>"
//	{"sleep_ms":N}          waits (an interrupt cuts it short)
//	{"wait_interrupt":true} waits for Interrupt: the turn fails "interrupted"
//	{"crash":N}             exits with code N
//	{"ignore_term":true}    ignores SIGTERM from now on
//	{"hang":true}           stops reading and writing until SIGTERM
//	{"garbage":"text"}      prints a line that is not JSON
//	{"bigline":N}           prints one line of N bytes
//	{"big_message":N}       a complete assistant message of N characters
//	{"fail":"text"}         ends the turn: TurnFailed runtime_error
//	{"blocks":{"role":"assistant","content":[blocks]}}
//	                        a complete message of those blocks (any
//	                        runtime's tool_use and tool_result shapes);
//	                        role user for a message of tool results
//
// The fake keeps a transcript of rpc.Message lines in
// StateDir/<workspace dir, non-alphanumerics as '-'>/<session id>.jsonl.
package scripted
