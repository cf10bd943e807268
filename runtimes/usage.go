package runtimes

import "github.com/cdevd/cdevd/rpc"

// RateLimitsUpdated carries the plan's rate-limit windows the CLI reported:
// some or all of them (the engine merges them by id). A runtime-wide fact,
// delivered through whichever session's CLI said it. UpdatedAt is left to
// the engine.
type RateLimitsUpdated struct {
	Windows []rpc.RateLimitWindow
}

// ContextUpdated says how full the session's context window is, after a
// model call. UsedPercent and UpdatedAt are left to the engine.
type ContextUpdated struct {
	Context rpc.ContextUsage
}

func (RateLimitsUpdated) isEvent() {}
func (ContextUpdated) isEvent()    {}
