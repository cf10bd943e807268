package runtimes

import "github.com/cdevd/cdevd/rpc"

// RateLimitsUpdated carries the plan's rate-limit windows the CLI reported:
// some or all of them (the engine merges them by id). A runtime-wide fact,
// delivered through whichever session's CLI said it. UpdatedAt is left to
// the engine. Like ContextUpdated it is a report, not part of a turn's
// shape: it may come at any time, also between turns.
type RateLimitsUpdated struct {
	Windows []rpc.RateLimitWindow
}

// ContextUpdated says how full the session's context window is, after a
// model call or when a resumed thread is loaded (Codex reports it then,
// before any turn). UsedPercent and UpdatedAt are left to the engine.
type ContextUpdated struct {
	Context rpc.ContextUsage
}

func (RateLimitsUpdated) isEvent() {}
func (ContextUpdated) isEvent()    {}
