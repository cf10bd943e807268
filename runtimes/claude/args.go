package claude

import (
	"fmt"
	"os"
	"slices"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// args is the command line of one long-lived session process: stream-json
// both ways (one stdin line per turn), token deltas, permission prompts
// asked over stdio instead of silently denied, and the user's prompts echoed
// back with the uuid the transcript keeps, so that a live prompt and its
// stored copy are one message to clients.
//
// Every value that comes from a client is joined to its flag with '=', so
// that it can never be read as a flag of its own (an id or a model named
// "--permission-mode=bypassPermissions"); the id is checked as well.
func args(req runtimes.StartRequest, sessionID string) ([]string, error) {
	if err := runtimes.ValidSessionID(sessionID); err != nil {
		return nil, err
	}
	a := []string{"-p",
		"--input-format", "stream-json",
		"--output-format", "stream-json",
		"--verbose",
		"--include-partial-messages",
		"--permission-prompt-tool", "stdio",
		"--replay-user-messages",
	}
	if req.Resume {
		a = append(a, "--resume="+sessionID)
	} else {
		a = append(a, "--session-id="+sessionID)
	}
	for _, d := range req.ReadDirs {
		// Claude Code asks before reading outside its working
		// directories; these are cdevd's own, which prompts name.
		a = append(a, "--add-dir="+d)
	}
	if req.Model != "" {
		// Aliases (sonnet, opus) and full ids alike: the CLI resolves them.
		a = append(a, "--model="+req.Model)
	}
	if req.Effort != "" {
		a = append(a, "--effort="+req.Effort)
	}
	if req.Yolo {
		return append(a, "--dangerously-skip-permissions"), nil
	}
	mode, err := permissionMode(req.PermissionMode)
	if err != nil {
		return nil, err
	}
	if mode != "" {
		a = append(a, "--permission-mode="+mode)
	}
	return a, nil
}

// permissionModes are the modes permissionMode maps onto the CLI: all of them.
var permissionModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionAcceptEdits,
	rpc.PermissionBypass, rpc.PermissionPlan, rpc.PermissionInteractive}

// permissionMode maps the protocol's mode onto the CLI's. interactive is the
// CLI's default mode: with --permission-prompt-tool stdio its prompts reach
// the client anyway.
func permissionMode(m rpc.PermissionMode) (string, error) {
	switch m {
	case "":
		return "", nil
	case rpc.PermissionInteractive:
		return string(rpc.PermissionDefault), nil
	case rpc.PermissionDefault, rpc.PermissionAcceptEdits, rpc.PermissionBypass, rpc.PermissionPlan:
		return string(m), nil
	}
	return "", fmt.Errorf("claude: unknown permission mode %q", m)
}

// env is the process environment for req. The CLI refuses to skip
// permissions as root unless told it runs in a sandbox; cdevd says so only
// when the user asked to skip them.
func env(base []string, req runtimes.StartRequest) []string {
	skips := req.Yolo || req.PermissionMode == rpc.PermissionBypass
	if !skips || os.Geteuid() != 0 || slices.Contains(base, "IS_SANDBOX=1") {
		return base
	}
	return append(slices.Clip(base), "IS_SANDBOX=1")
}
