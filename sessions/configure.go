package sessions

// A session's model, effort and permission mode: checked against what the
// runtime offers (the registry's record), kept in the session's options,
// and passed with every turn, from which the adapter switches its CLI
// (runtimes.Turn), and with every start of its process.

import (
	"context"
	"fmt"
	"slices"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Configuration is a session's model, effort and permission mode as asked;
// "" keeps what the session has.
type Configuration struct {
	Model          string
	Effort         string
	PermissionMode rpc.PermissionMode
}

// checkOffer refuses a model or an effort the runtime does not offer. The
// effort is checked against the model asked for, else the session's
// (current), else the runtime's default. A runtime whose CLI could not
// say what it offers refuses nothing: the CLI has the last word.
func (e *Engine) checkOffer(agentType string, c Configuration, current string) error {
	offer, known := e.reg.Offer(agentType)
	if !known {
		return nil
	}
	if c.Model != "" {
		if _, ok := offer.Find(c.Model); !ok {
			return rpc.UnsupportedModel(c.Model, agentType, offer.ModelIDs())
		}
	}
	if c.Effort == "" {
		return nil
	}
	name := c.Model
	if name == "" {
		name = current
	}
	if name == "" {
		name = offer.DefaultModel
	}
	m, ok := offer.Find(name)
	switch {
	case ok && !slices.Contains(m.Efforts, c.Effort):
		return rpc.UnsupportedEffort(c.Effort, m.ID, agentType, m.Efforts)
	case !ok && !offer.HasEfforts():
		return rpc.UnsupportedEffort(c.Effort, name, agentType, nil)
	}
	return nil
}

// Configure changes a session's model, effort or permission mode from its
// next turn on. A turn running now keeps what it started with. A session
// stopped by the user is refused: session/send with model and effort
// starts it again with them.
func (e *Engine) Configure(ctx context.Context, p rpc.SessionConfigureParams) (rpc.SessionConfigureResult, error) {
	c := Configuration{Model: p.Model, Effort: p.Effort, PermissionMode: p.PermissionMode}
	if c == (Configuration{}) {
		return rpc.SessionConfigureResult{}, rpc.InvalidParams("model", "one of model, effort and permission_mode is required")
	}
	s, err := e.session(p.SessionID)
	if err != nil {
		return rpc.SessionConfigureResult{}, err
	}
	if err := e.checkAgent(ctx, rpc.MethodSessionConfigure, p.AgentType, s); err != nil {
		return rpc.SessionConfigureResult{}, err
	}
	info := s.adapter.Info()
	if !info.Features.Configure {
		return rpc.SessionConfigureResult{}, rpc.InvalidParams("session_id", fmt.Sprintf(
			"%s cannot change a running session's model, effort or permission mode; start a session with them", info.ID))
	}
	if c.PermissionMode != "" && !slices.Contains(info.ConfigureModes, c.PermissionMode) {
		return rpc.SessionConfigureResult{}, rpc.UnsupportedPermissionMode(c.PermissionMode, info.ID, info.ConfigureModes)
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	if err := e.checkOffer(s.agentType, c, s.opts.Model); err != nil {
		return rpc.SessionConfigureResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return rpc.SessionConfigureResult{}, rpc.SessionNotFound(s.id)
	}
	if s.st == rpc.StatusStopped || s.stopping {
		return rpc.SessionConfigureResult{}, rpc.SessionBusy(s.id,
			"the session is stopped: session/send (with model and effort) starts it again")
	}
	s.applyLocked(c)
	return rpc.SessionConfigureResult{SessionID: s.id, AgentType: s.agentType, Model: s.opts.Model,
		Effort: s.opts.Effort, PermissionMode: s.opts.PermissionMode, Applies: "next_turn", TurnRunning: s.turnOpen}, nil
}

// configureForSend applies a send's model and effort before its turn, as
// Configure would; a session that cannot take the turn now is refused as
// the send would be, with nothing changed.
func (e *Engine) configureForSend(s *session, c Configuration) error {
	if c == (Configuration{}) || s.configured(c) {
		return nil // nothing asked, or a session this send started with it
	}
	if !s.adapter.Info().Features.Configure {
		return rpc.InvalidParams("model", fmt.Sprintf(
			"%s cannot change a running session's model or effort; start a session with them", s.agentType))
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	if err := e.checkOffer(s.agentType, c, s.opts.Model); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turnOpen || s.stopping {
		return rpc.SessionBusy(s.id, "a turn is running")
	}
	s.applyLocked(c)
	return nil
}

// configured reports whether the session already has every value c asks.
func (s *session) configured(c Configuration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return (c.Model == "" || c.Model == s.opts.Model) && (c.Effort == "" || c.Effort == s.opts.Effort) &&
		(c.PermissionMode == "" || c.PermissionMode == s.opts.PermissionMode)
}

// applyLocked records c in the session's options, which every later turn
// and process start carries. A permission mode asked for replaces yolo.
// Called with opMu and mu held (options are read under either).
func (s *session) applyLocked(c Configuration) {
	if c.Model != "" {
		s.opts.Model = c.Model
	}
	if c.Effort != "" {
		s.opts.Effort = c.Effort
	}
	if c.PermissionMode != "" {
		s.opts.PermissionMode, s.opts.Yolo = c.PermissionMode, false
	}
}

// turnConfig is what a turn carries of the session's options: the whole
// configuration, which the adapter compares with what its CLI runs. Called
// with opMu held.
func (s *session) turnConfig(prompt string) runtimes.Turn {
	return runtimes.Turn{Prompt: prompt, Model: s.opts.Model, Effort: s.opts.Effort, PermissionMode: s.opts.PermissionMode}
}
