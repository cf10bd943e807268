package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cdevd/cdevd/runtimes"
)

// reconfigure switches the agent to t's model (session/set_model, which
// ACP marks unstable and Gemini 0.61 implements) and permission mode
// (session/set_mode) where they differ from what it runs with, before the
// turn's prompt. ACP has no effort setting: the engine refuses one, as the
// offer lists no efforts.
func (s *session) reconfigure(ctx context.Context, t runtimes.Turn) error {
	a := s.a
	s.mu.Lock()
	model, mode, start := s.model, s.mode, s.defaultMode
	s.mu.Unlock()
	if start == "" {
		start = defaultModeID
	}
	if t.Effort != "" {
		return fmt.Errorf("%s: the agent takes no effort setting", a.spec.ID)
	}
	if t.Model != "" && t.Model != model {
		if err := s.peer.Call(ctx, "session/set_model", sdk.UnstableSetSessionModelRequest{SessionId: sdk.SessionId(s.id),
			ModelId: sdk.UnstableModelId(t.Model)}, nil); err != nil {
			return fmt.Errorf("%s: session/set_model %s: %w", a.spec.ID, t.Model, s.callErr(err))
		}
		model = t.Model
	}
	if t.PermissionMode != "" {
		want, err := a.modeFor(runtimes.StartRequest{PermissionMode: t.PermissionMode})
		if err != nil {
			return err
		}
		if want == "" {
			want = start
		}
		current := mode
		if current == "" {
			current = start
		}
		if want != current {
			if err := s.peer.Call(ctx, "session/set_mode", sdk.SetSessionModeRequest{SessionId: sdk.SessionId(s.id),
				ModeId: sdk.SessionModeId(want)}, nil); err != nil {
				return fmt.Errorf("%s: session/set_mode %s: %w", a.spec.ID, want, s.callErr(err))
			}
			mode = want
		}
	}
	s.mu.Lock()
	s.model, s.mode = model, mode
	s.mu.Unlock()
	return nil
}

// defaultModeID is the mode a session resumed with session/load is taken
// to have started in (Gemini's "default", which asks before write and exec
// tools): its answer is not read for it.
const defaultModeID = "default"
