// Package runtimes defines what cdevd needs from an agent CLI: the Adapter
// interface every runtime implements (one sub-package per CLI), the
// normalized events adapters emit, and the errors shared code checks for.
//
// An adapter knows nothing of connections, watchers or seqs: it spawns its
// CLI in the CLI's structured mode, writes turns and answers to it, and turns
// its output into Events. The sessions engine owns everything else (state,
// replay, fan-out, the one-terminal-event-per-turn rule, idle reaping).
//
// Adding a runtime: docs/architecture.md ("Adding a runtime") lists every
// file to touch, from runtimes/<name>/ and its registration in cmd/cdevd to
// the scenario suite's entry and docs/runtimes.md.
package runtimes
