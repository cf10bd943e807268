package codex

import (
	"fmt"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// configureModes are the permission modes a running thread can be switched
// to: turn/start takes an approval policy and a sandbox for "this turn and
// subsequent turns". Plan mode needs the experimental API, which only a
// thread started in plan mode has asked for, and acceptEdits has no Codex
// form (policy).
var configureModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionInteractive, rpc.PermissionBypass}

// turnSandbox is the sandbox policy turn/start takes for the sandbox mode
// thread/start takes.
var turnSandbox = map[string]string{
	"workspace-write":    "workspaceWrite",
	"danger-full-access": "dangerFullAccess",
	"read-only":          "readOnly",
}

// configure adds to a turn/start's params what t changes: its model and
// effort (turn/start's own "model" and "effort", which Codex keeps for the
// next turns), and a permission mode as an approval policy and sandbox.
// Model and effort go with every turn once asked for, which costs nothing
// when they are unchanged.
func (s *session) configure(t runtimes.Turn, params map[string]any) error {
	if t.PermissionMode != "" {
		pol, err := policy(runtimes.StartRequest{PermissionMode: t.PermissionMode})
		if err != nil {
			return err
		}
		if pol.Plan != s.pol.Plan {
			return fmt.Errorf("codex: plan mode is chosen when a thread starts, not in a running one (asked %q)", t.PermissionMode)
		}
		if pol != s.pol {
			params["approvalPolicy"] = pol.Approval
			params["sandboxPolicy"] = map[string]string{"type": turnSandbox[pol.Sandbox]}
			s.pol = pol
		}
	}
	if t.Model != "" {
		s.model = t.Model
		s.modelAsked = true
	}
	if t.Effort != "" {
		s.effort = t.Effort
	}
	if s.modelAsked {
		params["model"] = s.model
	}
	if s.effort != "" {
		params["effort"] = s.effort
	}
	return nil
}
