package runtimes

import (
	"context"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// TokenCounter is implemented by a Transcripts whose CLI records token
// usage apart from its messages (Codex's rollouts: a token_count event
// after each model call, none on the messages). usage/summary asks it for
// a session's counts instead of summing its messages' Usage.
type TokenCounter interface {
	// TokenCounts returns the usage of each model call of the session
	// recorded at or after since, oldest first.
	TokenCounts(ctx context.Context, dir, sessionID string, since time.Time) ([]TokenCount, error)
}

// TokenCount is one model call's usage and when it was recorded.
type TokenCount struct {
	At    time.Time
	Usage rpc.Usage
}
