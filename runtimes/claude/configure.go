package claude

import (
	"context"
	"fmt"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// configureModes are the permission modes a running session can be
// switched to: the CLI refuses bypassPermissions to a process not launched
// skipping permissions ("Cannot set permission mode to bypassPermissions
// because the session was not launched with --dangerously-skip-permissions").
var configureModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionAcceptEdits,
	rpc.PermissionPlan, rpc.PermissionInteractive}

// controlTimeout bounds the CLI's answer to a control request, which a live
// process gives at once.
const controlTimeout = 30 * time.Second

// configured is what the CLI runs with now, as far as cdevd asked: a
// value cdevd never set is "" (the CLI's own default).
type configured struct {
	model  string
	effort string
	mode   rpc.PermissionMode
}

func startConfig(req runtimes.StartRequest) configured {
	c := configured{model: req.Model, effort: req.Effort, mode: req.PermissionMode}
	if req.Yolo {
		c.mode = rpc.PermissionBypass
	}
	return c
}

// reconfigure switches the CLI to t's model, effort and permission mode
// where they differ from what it runs with, each through its own control
// request (set_model; apply_flag_settings with effortLevel, the CLI's
// setting for it; set_permission_mode), answered before the turn's line is
// written, so the turn's first request already carries them.
func (s *session) reconfigure(ctx context.Context, t runtimes.Turn) error {
	s.mu.Lock()
	cur := s.config
	s.mu.Unlock()
	if t.Model != "" && t.Model != cur.model {
		if err := s.control(ctx, map[string]any{"subtype": "set_model", "model": t.Model}); err != nil {
			return err
		}
		cur.model = t.Model
	}
	if t.Effort != "" && t.Effort != cur.effort {
		if err := s.control(ctx, map[string]any{"subtype": "apply_flag_settings",
			"settings": map[string]any{"effortLevel": t.Effort}}); err != nil {
			return err
		}
		cur.effort = t.Effort
	}
	if t.PermissionMode != "" && t.PermissionMode != cur.mode {
		mode, err := permissionMode(t.PermissionMode)
		if err != nil {
			return err
		}
		if err := s.control(ctx, map[string]any{"subtype": "set_permission_mode", "mode": mode}); err != nil {
			return err
		}
		cur.mode = t.PermissionMode
	}
	s.mu.Lock()
	s.config = cur
	s.mu.Unlock()
	return nil
}

// control writes a control request and waits for the CLI's answer.
func (s *session) control(ctx context.Context, request map[string]any) error {
	s.mu.Lock()
	s.controlSeq++
	id := fmt.Sprintf("cdevd-config-%d", s.controlSeq)
	answer := make(chan string, 1)
	s.controls[id] = answer
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.controls, id)
		s.mu.Unlock()
	}()
	if err := s.writeJSON(map[string]any{"type": "control_request", "request_id": id, "request": request}); err != nil {
		return err
	}
	timer := time.NewTimer(controlTimeout)
	defer timer.Stop()
	select {
	case refusal := <-answer:
		if refusal != "" {
			return fmt.Errorf("claude: %s refused: %s", request["subtype"], refusal)
		}
		return nil
	case <-s.p.Done():
		return fmt.Errorf("claude: %s: %w", request["subtype"], runtimes.ErrExited)
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return fmt.Errorf("claude: %s: no answer in %s", request["subtype"], controlTimeout)
	}
}

// answeredLocked hands a control response to the request waiting for it;
// false when none waits (an interrupt's answer).
func (s *session) answeredLocked(requestID, refusal string) bool {
	ch, ok := s.controls[requestID]
	if ok {
		ch <- refusal
		delete(s.controls, requestID)
	}
	return ok
}
