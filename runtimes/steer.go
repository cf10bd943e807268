package runtimes

import (
	"context"
	"errors"
)

// Steerer is a Session whose CLI takes input into the running turn (Codex's
// turn/steer): the model sees it before the turn ends, and no new turn
// starts. An adapter implements it only where Info().Features.Steering is
// proven by a scenario with the real CLI.
type Steerer interface {
	// Steer adds turn's input to the running turn; ErrNoTurn when none runs.
	Steer(ctx context.Context, turn Turn) error
}

// ErrNoTurn is Steer's error when no turn is running.
var ErrNoTurn = errors.New("no turn is running")
