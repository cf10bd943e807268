// Package sessions is cdevd's runtime-neutral session engine. It owns every
// session's state machine and its one process (through a runtimes.Session),
// numbers each session's events (seq, within the server's epoch), keeps a
// replay buffer so a client that reconnects with since_seq loses nothing,
// fans events out to every watcher without letting a slow one block the
// others, re-sends pending prompts to new watchers, and guarantees that
// every turn ends in exactly one terminal event.
//
// It knows no runtime by name: adapters come from the registry (through
// Router, which the engine defines) and speak only the normalized events of
// package runtimes.
//
// One file per concern: engine.go (the engine, its table of sessions, the
// lock order), session.go (one session's state), start.go, process.go,
// prompts.go, emit.go, eventlog.go (the replay buffer), watch.go,
// subscriptions.go and notice.go (workspace events), active.go, data.go and
// overlay.go (history and transcripts), trash.go.
package sessions
