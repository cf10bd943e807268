package openrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/contracttests"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// TestExamplesAgainstLiveServer calls every method with its documented
// example on a live cdevd (the scripted runtime standing in for claude and codex) and
// requires the live result to have the example result's shape: the same
// keys, at every level, with values of the same JSON types.
func TestExamplesAgainstLiveServer(t *testing.T) {
	gitIdentity(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := contracttests.StartDaemon(t, daemon.Config{Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()})}})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := contracttests.Dial(t, ctx, d.URL(), d.Token())

	// live maps the examples' ids to the live ones as they become known.
	// The examples name real runtimes (session/steer's names codex, which
	// steers; claude refuses to): the scripted one stands in for each.
	live := map[string]string{openrpc.ExamplePath: dir, `"claude"`: `"` + scripted.ID + `"`, `"codex"`: `"` + scripted.ID + `"`}
	ran := map[string]bool{}
	call := func(method string) json.RawMessage {
		t.Helper()
		ex := openrpc.Examples[method]
		b, err := json.Marshal(ex.Params)
		if err != nil {
			t.Fatal(err)
		}
		params := string(b)
		for from, to := range live {
			params = strings.ReplaceAll(params, from, to)
		}
		ran[method] = true
		if ex.Result == nil {
			if err := c.Notify(ctx, method, json.RawMessage(params)); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
			return nil
		}
		got, rerr := c.Call(ctx, method, json.RawMessage(params))
		if rerr != nil {
			t.Fatalf("%s %s: %v", method, params, rerr)
		}
		want, err := json.Marshal(ex.Result)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameShape(want, got); diff != "" {
			t.Errorf("%s: the example result's shape is not the live one: %s\nexample: %.600s\nlive:    %.600s", method, diff, want, got)
		}
		return got
	}
	field := func(raw json.RawMessage, key string) string {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(m[key])
	}
	awaitEvent := func(typ, id string) contracttests.Notification {
		t.Helper()
		n, err := c.Await(ctx, contracttests.Event(typ, id))
		if err != nil {
			t.Fatalf("awaiting %s: %v", typ, err)
		}
		return n
	}

	call(rpc.MethodInitialize)
	call(rpc.MethodInitialized)
	call(rpc.MethodDiscover)
	live[openrpc.ExampleWorkspaceID] = field(call(rpc.MethodWorkspaceAdd), "id")
	call(rpc.MethodWorkspaceList)
	call(rpc.MethodWorkspaceDiscover)
	call(rpc.MethodWorkspaceGet)
	call(rpc.MethodWorkspaceSubscribe)
	call(rpc.MethodWorkspaceSubscriptions)
	call(rpc.MethodWorkspaceSubscribeAll)
	call(rpc.MethodWorkspaceUnsubscribe)
	call(rpc.MethodUsageLimits)
	call(rpc.MethodUsageSummary)

	// The Explorer, on a README and a folder; search names no workspace
	// (as the iOS app sends it): the one this connection subscribed to.
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# app\n\nHello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call(rpc.MethodFilesList)
	call(rpc.MethodFileGet)
	call(rpc.MethodSearch)

	id := field(call(rpc.MethodSessionStart), "session_id")
	live[openrpc.ExampleSessionID] = id
	call(rpc.MethodSessionSend)
	awaitEvent(rpc.EventTurnCompleted, id)
	call(rpc.MethodSessionConfigure)
	call(rpc.MethodSessionState)
	call(rpc.MethodFocus)
	call(rpc.MethodWorkspaceStatus)

	// Two prompts to answer: one with session/respond, one with session/input.
	ask := `{"steps":[{"permission":{"tool":"Bash","target":"ls","kind":"bash_command"}},{"permission":{"tool":"Bash","target":"pwd","kind":"bash_command"}}]}`
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: ask, AgentType: scripted.ID}, nil)
	var p rpc.PermissionEvent
	if err := awaitEvent(rpc.EventPermission, id).Decode(&p); err != nil {
		t.Fatal(err)
	}
	live[openrpc.ExampleRequestID] = p.RequestID
	call(rpc.MethodSessionRespond)
	awaitEvent(rpc.EventPermission, id)
	call(rpc.MethodSessionInput)
	awaitEvent(rpc.EventTurnCompleted, id)

	call(rpc.MethodHistory)
	call(rpc.MethodMessages)
	call(rpc.MethodWatch)
	call(rpc.MethodUnwatch)
	call(rpc.MethodActivate)
	call(rpc.MethodSessionStop)
	call(rpc.MethodDelete)
	gitExamples(t, ctx, c, dir, live, call)
	turnExamples(t, ctx, c, dir, live, call)
	queueExamples(t, ctx, c, live, call)
	call(rpc.MethodWorkspaceRemove)

	// notify/test before any browser subscribed: nothing leaves the machine.
	call(rpc.MethodNotifyTest)
	call(rpc.MethodNotifyVAPIDKey)
	call(rpc.MethodNotifySubscribe)
	call(rpc.MethodNotifySubscriptions)
	call(rpc.MethodNotifyUpdate)
	call(rpc.MethodNotifyUnsubscribe)
	dev, _, err := d.Auth().Store.Add("phone", auth.ScopeControl, "cdev-ios/1.4", "192.0.2.1:5000")
	if err != nil {
		t.Fatal(err)
	}
	live[openrpc.ExampleDeviceID] = dev.ID
	call(rpc.MethodDeviceList)
	call(rpc.MethodDeviceRename)
	call(rpc.MethodDeviceRevoke)

	for _, m := range rpc.Methods {
		if !ran[m.Name] {
			t.Errorf("%s: its example was not run", m.Name)
		}
	}
}

// sameShape compares two JSON values by shape: objects with the same keys,
// values of the same JSON type, arrays by their first elements (when both
// have one). An empty object in the example stands for a map of any keys
// (rpc.discover's components). It returns where they first differ, or "".
func sameShape(a, b []byte) string {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return err.Error()
	}
	return shapeDiff("$", va, vb)
}

func shapeDiff(at string, a, b any) string {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return fmt.Sprintf("%s: %T in the example, %T live", at, a, b)
	}
	switch a := a.(type) {
	case map[string]any:
		b := b.(map[string]any)
		if len(a) == 0 {
			return ""
		}
		keys := func(m map[string]any) []string {
			var ks []string
			for k := range m {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			return ks
		}
		if ka, kb := keys(a), keys(b); !slices.Equal(ka, kb) {
			return fmt.Sprintf("%s: keys %v in the example, %v live", at, ka, kb)
		}
		for _, k := range keys(a) {
			if d := shapeDiff(at+"."+k, a[k], b[k]); d != "" {
				return d
			}
		}
	case []any:
		b := b.([]any)
		if len(a) > 0 && len(b) > 0 {
			return shapeDiff(at+"[0]", a[0], b[0])
		}
	}
	return ""
}

func TestSameShape(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[{"c":"x"}]}`, `{"b":[{"c":"y"},{}],"a":2}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`{"a":[{"c":1}]}`, `{"a":[{"d":1}]}`, false},
		{`{"a":[]}`, `{"a":[{"d":1}]}`, true},
		{`{"a":{}}`, `{"a":{"d":1}}`, true},
		{`{"a":{"c":1}}`, `{"a":{}}`, false},
	} {
		if got := sameShape([]byte(tc.a), []byte(tc.b)) == ""; got != tc.same {
			t.Errorf("sameShape(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// TestExamplesMatchTheDocument validates every example's params and result
// against the method's schemas, as the document states them.
func TestExamplesMatchTheDocument(t *testing.T) {
	v, err := openrpc.NewValidator(openrpc.Document)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rpc.Methods {
		ex, ok := openrpc.Examples[m.Name]
		if !ok {
			t.Errorf("%s has no example", m.Name)
			continue
		}
		params, _ := json.Marshal(ex.Params)
		if err := v.ValidateParams(m.Name, params); err != nil {
			t.Errorf("example params: %v", err)
		}
		if (ex.Result == nil) != (m.Result == nil) {
			t.Errorf("%s: example result %v, but the method's result is %v", m.Name, ex.Result, m.Result)
			continue
		}
		if ex.Result != nil {
			result, _ := json.Marshal(ex.Result)
			if err := v.ValidateResult(m.Name, result); err != nil {
				t.Errorf("example result: %v", err)
			}
		}
	}
}

// gitIdentity makes the git the daemon runs that of a user with a name and
// no other configuration, whoever runs the test.
func gitIdentity(t *testing.T) {
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
		"GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com",
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"} {
		t.Setenv(k, v)
	}
}

// gitExamples runs the git family's examples in the workspace's folder, in
// the order openrpc/examples.go tells: from an empty folder to a
// repository with a remote and history.
func gitExamples(t *testing.T, ctx context.Context, c *contracttests.Client, dir string, live map[string]string,
	call func(string) json.RawMessage) {
	t.Helper()
	writeFile := func(content string) {
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare := filepath.Join(t.TempDir(), "app.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v %s", err, out)
	}
	live[openrpc.ExampleRemote] = bare
	ws := live[openrpc.ExampleWorkspaceID]

	writeFile("# app\n")
	call(rpc.MethodGitInit)
	writeFile("# app\nMore.\n")
	call(rpc.MethodGitStatus)
	call(rpc.MethodGitDiff)
	call(rpc.MethodGitStage)
	call(rpc.MethodGitUnstage)
	call(rpc.MethodGitDiscard)
	writeFile("# app\nUsage.\n")
	c.MustCall(ctx, rpc.MethodGitStage, rpc.GitPathsParams{WorkspaceID: ws, Paths: []string{"."}}, nil)
	call(rpc.MethodGitCommit)
	call(rpc.MethodGitRemoteAdd)
	call(rpc.MethodGitPush)
	call(rpc.MethodGitPull)
	call(rpc.MethodGitUpstreamSet)
	call(rpc.MethodGitBranches)
	call(rpc.MethodGitCheckout)
	c.MustCall(ctx, rpc.MethodGitCheckout, rpc.GitCheckoutParams{WorkspaceID: ws, Branch: "main"}, nil)
	call(rpc.MethodGitBranchDelete)
	call(rpc.MethodGitLog)
}

// turnExamples runs a turn that changes README.md in the repository
// gitExamples made (the test writes it while the turn waits on a
// permission prompt, as an agent's tool would), then the turn methods.
func turnExamples(t *testing.T, ctx context.Context, c *contracttests.Client, dir string, live map[string]string,
	call func(string) json.RawMessage) {
	t.Helper()
	var start rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: live[openrpc.ExampleWorkspaceID],
		AgentType: scripted.ID}, &start)
	id := start.SessionID
	live[openrpc.ExampleSessionID] = id
	ask := `{"steps":[{"permission":{"tool":"Write","target":"README.md","kind":"write_file"}}]}`
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: ask, AgentType: scripted.ID}, nil)
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventPermission, id)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# app\nUsage, by the agent.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", AgentType: scripted.ID}, nil)
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventTurnDiff, id)); err != nil {
		t.Fatal(err)
	}
	call(rpc.MethodSessionTurns)
	call(rpc.MethodSessionTurnDiff)
	call(rpc.MethodSessionRevert)
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(b) != "# app\nUsage.\n" {
		t.Fatalf("README.md after the revert: %q %v", b, err)
	}
}

// queueExamples queues a prompt behind a turn that waits on a permission
// prompt, runs the queue's methods on it and steers that turn, then lets
// the turn end with an empty queue.
func queueExamples(t *testing.T, ctx context.Context, c *contracttests.Client, live map[string]string,
	call func(string) json.RawMessage) {
	t.Helper()
	var start rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: live[openrpc.ExampleWorkspaceID],
		AgentType: scripted.ID}, &start)
	id := start.SessionID
	live[openrpc.ExampleSessionID] = id
	ask := `{"steps":[{"permission":{"tool":"Bash","target":"ls","kind":"bash_command"}}]}`
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: ask, AgentType: scripted.ID}, nil)
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventPermission, id)); err != nil {
		t.Fatal(err)
	}
	var queued rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: "then add tests", AgentType: scripted.ID}, &queued)
	if queued.Status != rpc.SendQueued || queued.Position != 1 {
		t.Fatalf("session/send during a turn = %+v", queued)
	}
	live[openrpc.ExampleQueueID] = queued.QueueID
	call(rpc.MethodQueueList)
	call(rpc.MethodQueueUpdate)
	call(rpc.MethodQueueMove)
	call(rpc.MethodSessionSteer)
	call(rpc.MethodQueueRemove)
	call(rpc.MethodQueueClear)
	call(rpc.MethodQueueResume)
	c.MustCall(ctx, rpc.MethodSessionRespond, rpc.SessionRespondParams{SessionID: id, Type: rpc.RespondPermission,
		Response: "yes", AgentType: scripted.ID}, nil)
	if _, err := c.Await(ctx, contracttests.Event(rpc.EventTurnCompleted, id)); err != nil {
		t.Fatal(err)
	}
}
