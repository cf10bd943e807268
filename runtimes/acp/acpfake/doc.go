// Package acpfake is a scripted Agent Client Protocol agent for tests: the
// re-executed test binary plays an agent that speaks like gemini --acp 0.61
// (CLI-PROTOCOLS.md section 2) over stdin/stdout, fast and without a model.
//
// A test's TestMain calls Main when IsAgent reports that the process was
// started as the fake; the test starts os.Args[0] with Env(Options{...})
// added to its environment. The prompt text picks a script (echo, THINK,
// TOOL, EDIT, SLOW, HISTORY, FAIL, CRASH, GARBAGE, HANG, BIG, FLOOD, STDERR), so
// one agent shows both Gemini's normal turns and faults a real agent cannot
// show on demand.
//
// The wire is written by hand rather than with the SDK's agent side, so that
// the fake can break it: omit "jsonrpc" (Options.NoJSONRPC) or print lines
// that are not JSON at all.
package acpfake
