// Package kit is what every runtime adapter's session is built from, so that
// each CLI's folder holds only what is particular to that CLI:
//
//   - Emitter delivers a session's events to the engine's sink in order, from
//     one goroutine the session owns, never from a caller's goroutine (which
//     may hold the engine's locks), and nothing after ProcessExited.
//   - Turn is the one running turn and the prompts it waits on: it begins
//     once, ends exactly once (idle, then its one terminal event, with its
//     open prompts withdrawn), and ends failed when the process exits.
//   - Bin and DetectVersion find the CLI: a relative CLAUDE_BIN (…) is made
//     absolute where cdevd starts, never looked up in a session's directory.
//
// The kit owns the order of those events, so every adapter emits them in
// the same order (the engine and clients rely on it).
package kit
