package contracttests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// The iOS app's Changes tab, diff viewer, branch sheet, history and Git
// setup wizard, over the wire: each request exactly as the app sends it
// (every optional param it always sends, never null), each result read as
// the app's decoders read it: a required field missing or of another type
// fails the whole response (see ../shared/IOS-APP.md §2).

// gitUser makes the daemon's git that of a user with a name and no other
// configuration (their own config is the daemon's in real use).
func gitUser(t *testing.T) {
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
		"GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com",
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"} {
		t.Setenv(k, v)
	}
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// appCall sends params verbatim and returns the decoded result.
func appCall(t *testing.T, ctx context.Context, c *Client, method, params string) map[string]any {
	t.Helper()
	raw, rerr := c.Call(ctx, method, json.RawMessage(params))
	if rerr != nil {
		t.Fatalf("%s %s: %v", method, params, rerr)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return m
}

// need checks what the app's decoder requires: path is dot-separated keys,
// "[]" after a key meaning every element of that array; kind is the JSON
// type (string, bool, number, array, object).
func need(t *testing.T, what string, doc any, path, kind string) {
	t.Helper()
	for _, p := range walk(doc, strings.Split(path, "."), what) {
		if p.err != "" {
			t.Errorf("%s: %s", what, p.err)
			continue
		}
		if got := jsonKind(p.v); got != kind {
			t.Errorf("%s: %s is %s (%v), the app requires %s", what, p.at, got, p.v, kind)
		}
	}
}

type found struct {
	at, err string
	v       any
}

func walk(v any, keys []string, at string) []found {
	if len(keys) == 0 {
		return []found{{at: at, v: v}}
	}
	key, each := strings.CutSuffix(keys[0], "[]")
	obj, ok := v.(map[string]any)
	if !ok {
		return []found{{err: at + " is not an object"}}
	}
	child, ok := obj[key]
	if !ok {
		return []found{{err: at + "." + key + " is missing"}}
	}
	if !each {
		return walk(child, keys[1:], at+"."+key)
	}
	list, ok := child.([]any)
	if !ok {
		return []found{{err: at + "." + key + " is not an array"}}
	}
	var out []found
	for i, el := range list {
		out = append(out, walk(el, keys[1:], fmt.Sprintf("%s.%s[%d]", at, key, i))...)
	}
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

func TestGitAppScreens(t *testing.T) {
	gitUser(t)
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	dir := w.Path
	bare := filepath.Join(t.TempDir(), "remote.git")
	gitCmd(t, dir, "init", "-q", "--bare", bare)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := fmt.Sprintf(`"workspace_id":%q`, w.ID)

	// Setup wizard: init, stage everything, commit, add the remote, push.
	res := appCall(t, ctx, c, rpc.MethodGitInit, `{`+ws+`,"initial_branch":"main","initial_commit":false}`)
	if res["success"] != true || res["branch"] != "main" {
		t.Fatalf("git/init = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitInit, `{`+ws+`,"initial_branch":"main","initial_commit":false}`)
	if res["success"] != false || !strings.Contains(fmt.Sprint(res["error"]), "already a git repository") {
		t.Errorf("git/init again = %v (the wizard reads 'already … git repository' as done)", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitStage, `{`+ws+`,"paths":["."]}`)
	need(t, "git/stage", res, "success", "bool")
	if res["staged_count"] != 1.0 {
		t.Errorf("git/stage . = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitCommit, `{`+ws+`,"message":"Initial commit","push":false}`)
	need(t, "git/commit", res, "success", "bool")
	if res["success"] != true || len(fmt.Sprint(res["sha"])) != 40 || res["files_committed"] != 1.0 {
		t.Fatalf("git/commit = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitCommit, `{`+ws+`,"message":"again","push":false}`)
	if res["success"] != false || !strings.Contains(fmt.Sprint(res["error"]), "nothing to commit") {
		t.Errorf("git/commit with nothing staged = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitRemoteAdd, `{`+ws+`,"name":"origin","url":"`+bare+`","fetch":true}`)
	if res["success"] != true {
		t.Fatalf("git/remote/add = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitRemoteAdd, `{`+ws+`,"name":"origin","url":"`+bare+`","fetch":true}`)
	if !strings.Contains(fmt.Sprint(res["error"]), "already exists") {
		t.Errorf("git/remote/add again = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitPush, `{`+ws+`,"force":false,"set_upstream":true}`)
	if res["success"] != true || res["commits_pushed"] != 1.0 {
		t.Fatalf("git/push = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitUpstreamSet, `{`+ws+`,"branch":"main","upstream":"origin/main"}`)
	if res["success"] != true {
		t.Errorf("git/upstream/set = %v", res)
	}

	// Changes tab and diff viewer: a file only staged still shows its diff
	// when asked with staged:false, as the app always asks.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appCall(t, ctx, c, rpc.MethodGitStage, `{`+ws+`,"paths":["a.txt"]}`)
	res = appCall(t, ctx, c, rpc.MethodGitStatus, `{`+ws+`}`)
	for _, list := range []string{"staged", "unstaged", "untracked", "conflicted"} {
		need(t, "git/status", res, list+"[].path", "string")
	}
	if res["branch"] != "main" || res["upstream"] != "origin/main" || len(res["staged"].([]any)) != 1 || len(res["untracked"].([]any)) != 1 {
		t.Errorf("git/status = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitDiff, `{`+ws+`,"staged":false,"path":"a.txt"}`)
	need(t, "git/diff", res, "diffs[].path", "string")
	need(t, "git/diff", res, "diffs[].diff", "string")
	if d := res["diffs"].([]any); len(d) != 1 || !strings.Contains(d[0].(map[string]any)["diff"].(string), "+two") {
		t.Errorf("git/diff of a staged file = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitUnstage, `{`+ws+`,"paths":["a.txt"]}`)
	need(t, "git/unstage", res, "success", "bool")
	res = appCall(t, ctx, c, rpc.MethodGitDiscard, `{`+ws+`,"paths":["new.txt"]}`)
	need(t, "git/discard", res, "success", "bool")
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) || res["discarded_count"] != 1.0 {
		t.Errorf("git/discard of an untracked file = %v; the file: %v", res, err)
	}
	appCall(t, ctx, c, rpc.MethodGitStage, `{`+ws+`,"paths":["."]}`)
	res = appCall(t, ctx, c, rpc.MethodGitCommit, `{`+ws+`,"message":"Two","push":true}`)
	if res["success"] != true || res["pushed"] != true || gitCmd(t, bare, "rev-parse", "main") != res["sha"] {
		t.Errorf("git/commit with push = %v", res)
	}
	res = appCall(t, ctx, c, rpc.MethodGitPull, `{`+ws+`,"rebase":false}`)
	if res["success"] != true {
		t.Errorf("git/pull = %v", res)
	}

	// Branch sheet.
	res = appCall(t, ctx, c, rpc.MethodGitCheckout, `{`+ws+`,"branch":"feature","create":true}`)
	if res["success"] != true || res["branch"] != "feature" {
		t.Fatalf("git/checkout create = %v", res)
	}
	appCall(t, ctx, c, rpc.MethodGitPush, `{`+ws+`,"force":false,"set_upstream":true}`)
	res = appCall(t, ctx, c, rpc.MethodGitBranches, `{`+ws+`}`)
	need(t, "git/branches", res, "branches[].name", "string")
	if res["current"] != "feature" || len(res["branches"].([]any)) != 4 {
		t.Errorf("git/branches = %v", res)
	}
	appCall(t, ctx, c, rpc.MethodGitCheckout, `{`+ws+`,"branch":"main","create":false}`)
	res = appCall(t, ctx, c, rpc.MethodGitBranchDelete, `{`+ws+`,"branch":"feature","force":false,"delete_remote":true}`)
	if res["success"] != true || res["deleted_remote"] != true {
		t.Errorf("git/branch/delete = %v", res)
	}

	// History.
	res = appCall(t, ctx, c, rpc.MethodGitLog, `{`+ws+`,"limit":50,"offset":0,"graph":true}`)
	for _, f := range []string{"sha", "subject", "author", "author_email", "date"} {
		need(t, "git/log", res, "commits[]."+f, "string")
	}
	need(t, "git/log", res, "commits[].refs[].name", "string")
	need(t, "git/log", res, "commits[].refs[].type", "string")
	need(t, "git/log", res, "commits[].graph_position.column", "number")
	for _, f := range []string{"from_column", "to_column"} {
		need(t, "git/log", res, "commits[].graph_position.lines[]."+f, "number")
	}
	need(t, "git/log", res, "commits[].graph_position.lines[].type", "string")
	if res["total_count"] != 2.0 || len(res["commits"].([]any)) != 2 {
		t.Errorf("git/log = %v", res)
	}

	// The workspace list with each workspace's git state.
	res = appCall(t, ctx, c, rpc.MethodWorkspaceList, `{"include_git":true}`)
	need(t, "workspace/list", res, "workspaces[].git.initialized", "bool")
	need(t, "workspace/list", res, "workspaces[].git.has_remotes", "bool")
	for _, item := range res["workspaces"].([]any) {
		g := item.(map[string]any)["git"].(map[string]any)
		if item.(map[string]any)["id"] == w.ID && (g["initialized"] != true || g["has_remotes"] != true || g["branch"] != "main" || g["state"] != "clean") {
			t.Errorf("workspace/list git = %v", g)
		}
	}
}

// Every git method in a folder that is no repository says "not a git
// repository": the read methods as an error (the Changes tab then offers
// Setup Git), the others as success:false.
func TestGitNotARepository(t *testing.T) {
	gitUser(t)
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	ws := fmt.Sprintf(`"workspace_id":%q`, w.ID)
	reads := map[string]string{
		rpc.MethodGitStatus:   `{` + ws + `}`,
		rpc.MethodGitDiff:     `{` + ws + `,"staged":false,"path":"a.txt"}`,
		rpc.MethodGitBranches: `{` + ws + `}`,
		rpc.MethodGitLog:      `{` + ws + `,"limit":50,"offset":0,"graph":true}`,
	}
	for method, params := range reads {
		_, rerr := c.Call(ctx, method, json.RawMessage(params))
		wantError(t, method, rerr, rpc.CodeNotGitRepo)
		if !strings.Contains(rerr.Message, "not a git repository") {
			t.Errorf("%s: %q", method, rerr.Message)
		}
	}
	writes := map[string]string{
		rpc.MethodGitStage:        `{` + ws + `,"paths":["."]}`,
		rpc.MethodGitUnstage:      `{` + ws + `,"paths":["a.txt"]}`,
		rpc.MethodGitDiscard:      `{` + ws + `,"paths":["a.txt"]}`,
		rpc.MethodGitCommit:       `{` + ws + `,"message":"m","push":true}`,
		rpc.MethodGitPush:         `{` + ws + `,"force":false,"set_upstream":false}`,
		rpc.MethodGitPull:         `{` + ws + `,"rebase":false}`,
		rpc.MethodGitCheckout:     `{` + ws + `,"branch":"x","create":true}`,
		rpc.MethodGitBranchDelete: `{` + ws + `,"branch":"x","force":false,"delete_remote":false}`,
		rpc.MethodGitRemoteAdd:    `{` + ws + `,"name":"origin","url":"https://example.com/r.git","fetch":true}`,
		rpc.MethodGitUpstreamSet:  `{` + ws + `,"branch":"main","upstream":"origin/main"}`,
	}
	for method, params := range writes {
		res := appCall(t, ctx, c, method, params)
		if res["success"] != false || !strings.Contains(fmt.Sprint(res["error"]), "not a git repository") {
			t.Errorf("%s = %v", method, res)
		}
	}
	if len(reads)+len(writes)+1 != 15 {
		t.Errorf("%d methods checked; the family has 15 (git/init makes the repository)", len(reads)+len(writes)+1)
	}
	res := appCall(t, ctx, c, rpc.MethodWorkspaceList, `{"include_git":true}`)
	for _, item := range res["workspaces"].([]any) {
		if g := item.(map[string]any)["git"].(map[string]any); g["initialized"] != false || g["has_remotes"] != false {
			t.Errorf("git of a plain folder = %v", g)
		}
	}
}

// Bad input gets a clear error and leaves the server serving.
func TestGitBadInput(t *testing.T) {
	gitUser(t)
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	gitCmd(t, w.Path, "init", "-q")
	ws := fmt.Sprintf(`"workspace_id":%q`, w.ID)
	cases := []struct {
		method, params string
		code           int64
	}{
		{rpc.MethodGitCheckout, `{` + ws + `,"branch":"--orphan","create":true}`, rpc.CodeInvalidParams},
		{rpc.MethodGitBranchDelete, `{` + ws + `,"branch":"-D","force":false,"delete_remote":false}`, rpc.CodeInvalidParams},
		{rpc.MethodGitUpstreamSet, `{` + ws + `,"branch":"main","upstream":"--unset-upstream"}`, rpc.CodeInvalidParams},
		{rpc.MethodGitStage, `{` + ws + `,"paths":["../outside"]}`, rpc.CodePathOutside},
		{rpc.MethodGitDiscard, `{` + ws + `,"paths":["/etc/passwd"]}`, rpc.CodeInvalidPath},
		{rpc.MethodGitDiff, `{` + ws + `,"staged":false,"path":".git/config"}`, rpc.CodeInvalidPath},
		{rpc.MethodGitStage, `{` + ws + `,"paths":"a.txt"}`, rpc.CodeInvalidParams},
		{rpc.MethodGitLog, `{` + ws + `,"limit":-1}`, rpc.CodeInvalidParams},
		{rpc.MethodGitStatus, `{"workspace_id":"ws_missing"}`, rpc.CodeWorkspaceNotFound},
		{rpc.MethodGitStatus, `{}`, rpc.CodeInvalidParams},
	}
	for _, tc := range cases {
		_, rerr := c.Call(ctx, tc.method, json.RawMessage(tc.params))
		wantError(t, tc.method+" "+tc.params, rerr, tc.code)
	}
	res := appCall(t, ctx, c, rpc.MethodGitStatus, `{`+ws+`}`)
	if res["branch"] != "main" && res["branch"] != "master" {
		t.Errorf("after bad input, git/status = %v", res)
	}
}

// Workspace events: a subscriber hears of files changing, the status
// moving and each git operation, with the agent_type of its runtime and no
// session_id (the app's decoder would take them for session info).
func TestGitWorkspaceEvents(t *testing.T) {
	gitUser(t)
	e := startEnv(t)
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)
	gitCmd(t, w.Path, "init", "-q", "-b", "main")
	c.MustCall(ctx, rpc.MethodWorkspaceSubscribe, rpc.WorkspaceIDParams{WorkspaceID: w.ID}, nil)

	if err := os.WriteFile(filepath.Join(w.Path, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := awaitWorkspaceEvent(t, ctx, c, rpc.EventFileChanged, func(n Notification) bool { return n.Field("path") == "hello.txt" })
	if changed.Field("change") != "created" && changed.Field("change") != "modified" {
		t.Errorf("file_changed = %s", changed)
	}
	status := awaitWorkspaceEvent(t, ctx, c, rpc.EventGitStatusChanged, func(n Notification) bool { return n.Field("untracked_count") == 1.0 })
	if status.Field("branch") != "main" {
		t.Errorf("git_status_changed = %s", status)
	}

	appCall(t, ctx, c, rpc.MethodGitStage, fmt.Sprintf(`{"workspace_id":%q,"paths":["."]}`, w.ID))
	op := awaitWorkspaceEvent(t, ctx, c, rpc.EventGitOperationCompleted, func(n Notification) bool { return n.Field("operation") == "stage" })
	if op.Field("success") != true {
		t.Errorf("git_operation_completed = %s", op)
	}
	awaitWorkspaceEvent(t, ctx, c, rpc.EventGitStatusChanged, func(n Notification) bool { return n.Field("staged_count") == 1.0 })
	appCall(t, ctx, c, rpc.MethodGitCommit, fmt.Sprintf(`{"workspace_id":%q,"message":"m","push":false}`, w.ID))
	op = awaitWorkspaceEvent(t, ctx, c, rpc.EventGitOperationCompleted, func(n Notification) bool { return n.Field("operation") == "commit" })
	if len(fmt.Sprint(op.Field("sha"))) != 40 {
		t.Errorf("commit's git_operation_completed = %s", op)
	}
}

// awaitWorkspaceEvent waits for a workspace event of typ that matches, and
// checks the two things the app's decoder needs of it.
func awaitWorkspaceEvent(t *testing.T, ctx context.Context, c *Client, typ string, match func(Notification) bool) Notification {
	t.Helper()
	n, err := c.Await(ctx, func(n Notification) bool { return n.Type() == typ && match(n) })
	if err != nil {
		t.Fatalf("awaiting %s: %v", typ, err)
	}
	var m map[string]any
	if err := json.Unmarshal(n.Params, &m); err != nil {
		t.Fatal(err)
	}
	if _, has := m["session_id"]; has {
		t.Errorf("%s carries session_id: %s", typ, n.Params)
	}
	if m["agent_type"] != scripted.ID {
		t.Errorf("%s agent_type = %v, want %s (the runtime the client uses)", typ, m["agent_type"], scripted.ID)
	}
	return n
}
