package claude

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func TestArgs(t *testing.T) {
	const id = "0b6f3b8e-5d0c-4f4e-9c43-3f0d2f6b9a11"
	base := "-p --input-format stream-json --output-format stream-json --verbose --include-partial-messages --permission-prompt-tool stdio --replay-user-messages "
	for _, tc := range []struct {
		req  runtimes.StartRequest
		want string
	}{
		{runtimes.StartRequest{}, "--session-id=" + id},
		{runtimes.StartRequest{Resume: true}, "--resume=" + id},
		{runtimes.StartRequest{Model: "sonnet"}, "--session-id=" + id + " --model=sonnet"},
		{runtimes.StartRequest{Model: "sonnet", Effort: "low"}, "--session-id=" + id + " --model=sonnet --effort=low"},
		{runtimes.StartRequest{ReadDirs: []string{"/h/attachments"}}, "--session-id=" + id + " --add-dir=/h/attachments"},
		{runtimes.StartRequest{PermissionMode: rpc.PermissionInteractive}, "--session-id=" + id + " --permission-mode=default"},
		{runtimes.StartRequest{PermissionMode: rpc.PermissionDefault}, "--session-id=" + id + " --permission-mode=default"},
		{runtimes.StartRequest{PermissionMode: rpc.PermissionAcceptEdits}, "--session-id=" + id + " --permission-mode=acceptEdits"},
		{runtimes.StartRequest{PermissionMode: rpc.PermissionPlan}, "--session-id=" + id + " --permission-mode=plan"},
		{runtimes.StartRequest{PermissionMode: rpc.PermissionBypass}, "--session-id=" + id + " --permission-mode=bypassPermissions"},
		{runtimes.StartRequest{Yolo: true, PermissionMode: rpc.PermissionPlan}, "--session-id=" + id + " --dangerously-skip-permissions"},
	} {
		got, err := args(tc.req, id)
		if err != nil {
			t.Errorf("%+v: %v", tc.req, err)
			continue
		}
		if s := strings.Join(got, " "); s != base+tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.req, s, base+tc.want)
		}
	}
	if _, err := args(runtimes.StartRequest{PermissionMode: "sometimes"}, id); err == nil {
		t.Error("an unknown permission mode was accepted")
	}
}

// No value a client chose is ever an argument of its own that begins with
// '-': it would be read as a flag.
func TestArgsNeverTakeAValueForAFlag(t *testing.T) {
	const flagLike = "--permission-mode=bypassPermissions"
	for _, resume := range []bool{false, true} {
		if a, err := args(runtimes.StartRequest{Resume: resume}, flagLike); !errors.Is(err, runtimes.ErrBadSessionID) {
			t.Errorf("resume %v: id %q gave %q, %v; want ErrBadSessionID", resume, flagLike, a, err)
		}
	}
	const id = "0b6f3b8e-5d0c-4f4e-9c43-3f0d2f6b9a11"
	a, err := args(runtimes.StartRequest{Resume: true, Model: flagLike, Effort: flagLike}, id)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{"stream-json": true, "stdio": true} // values of fixed flags
	for i, s := range a {
		if strings.HasPrefix(s, "-") {
			continue
		}
		if !known[s] {
			t.Errorf("argument %d %q stands alone: %q", i, s, a)
		}
	}
	if !slices.Contains(a, "--model="+flagLike) || !slices.Contains(a, "--effort="+flagLike) || !slices.Contains(a, "--resume="+id) {
		t.Errorf("args %q", a)
	}
}

func TestEnvSandboxOnlyWhenSkippingPermissions(t *testing.T) {
	base := []string{"PATH=/bin"}
	if got := env(base, runtimes.StartRequest{}); slices.Contains(got, "IS_SANDBOX=1") {
		t.Errorf("IS_SANDBOX set for a normal session: %v", got)
	}
	for _, req := range []runtimes.StartRequest{{Yolo: true}, {PermissionMode: rpc.PermissionBypass}} {
		got := env(base, req)
		if want := os.Geteuid() == 0; slices.Contains(got, "IS_SANDBOX=1") != want {
			t.Errorf("%+v as uid %d: %v", req, os.Geteuid(), got)
		}
	}
	if len(base) != 1 {
		t.Errorf("env changed its base: %v", base)
	}
}

func TestProjectsDir(t *testing.T) {
	if got := projectsDir([]string{"HOME=/h"}); got != "/h/.claude/projects" {
		t.Errorf("from HOME: %s", got)
	}
	if got := projectsDir([]string{"HOME=/h", "CLAUDE_CONFIG_DIR=/c"}); got != "/c/projects" {
		t.Errorf("from CLAUDE_CONFIG_DIR: %s", got)
	}
}

func TestDefaultEnvHidesDaemonToken(t *testing.T) {
	t.Setenv("CDEVD_TOKEN", "secret")
	t.Setenv("CLAUDE_BIN", "/opt/claude")
	a := New(Config{})
	if slices.ContainsFunc(a.cfg.Env, func(kv string) bool { return strings.HasPrefix(kv, "CDEVD_TOKEN=") }) {
		t.Error("the daemon's token is in the CLI's environment")
	}
	if a.cfg.Bin != "/opt/claude" {
		t.Errorf("bin = %q, want CLAUDE_BIN", a.cfg.Bin)
	}
}
