package codex

import (
	"context"
	"errors"
	"fmt"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// Steer adds input to the running turn with turn/steer: Codex hands it to
// the model with its next request of the same turn, and the turn still
// ends once. The turn's id is a precondition (expectedTurnId), so input
// meant for a turn that has just ended is refused rather than merged into
// another.
func (s *session) Steer(ctx context.Context, t runtimes.Turn) error {
	if !s.turn.Busy() {
		return runtimes.ErrNoTurn
	}
	turnID, err := s.runningTurnID(ctx)
	if err != nil {
		return err
	}
	params := map[string]any{"threadId": s.id, "expectedTurnId": turnID,
		"input": []map[string]any{{"type": "text", "text": t.Prompt, "text_elements": []any{}}}}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := s.peer.Call(cctx, "turn/steer", params, nil); err != nil {
		if errors.Is(err, stdiorpc.ErrClosed) {
			return runtimes.ErrExited
		}
		var rerr *stdiorpc.Error
		if errors.As(err, &rerr) && !s.turn.Busy() {
			return runtimes.ErrNoTurn // the turn ended meanwhile
		}
		return fmt.Errorf("codex: turn/steer: %w", err)
	}
	return nil
}
