package contracttests

// The scenario rig: one runtime's cdevd, and the steps its scenarios share
// (a client, a workspace, start, send, a turn's end, watch, stored pages).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

// scenarioRig is one runtime's cdevd and what its scenarios share.
type scenarioRig struct {
	runtimeRig
	rt     scenarioRuntime
	tb     testing.TB // the runtime's test, which outlives its scenarios
	url    string
	token  string
	mark   string      // in the environment of every process the CLI starts
	record rpc.Runtime // the runtime's record in initialize's registry
	proved map[string]bool
	// The conversation of the first three scenarios.
	conv struct {
		w   rpc.Workspace
		id  string
		pid int
	}
}

// markProcesses returns an environment entry (name=id-time) to give every
// process rt's CLI starts, and checks, once the test is over, that none is
// left at any depth. Call it before anything that starts the CLI: its
// cleanup is registered first, so it runs last, after cdevd has shut down.
func markProcesses(t *testing.T, name, id string) string {
	t.Helper()
	mark := fmt.Sprintf("%s=%s-%d", name, id, time.Now().UnixNano())
	t.Cleanup(func() {
		if left := proctest.Marked(mark); len(left) > 0 {
			t.Errorf("%s processes left after cdevd shut down: %v", id, left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return mark
}

func newScenarioRig(t *testing.T, rt scenarioRuntime) *scenarioRig {
	t.Helper()
	mark := markProcesses(t, "CDEVD_SCENARIO", rt.id)
	// The fake API starts first, so that it closes after cdevd has ended the CLIs.
	rr := rt.start(t, mark, suiteModel)
	if id := rr.adapter.Info().ID; id != rt.id {
		t.Fatalf("the %s entry's adapter is %s", rt.id, id)
	}
	d := StartDaemon(t, daemon.Config{Adapters: []runtimes.Adapter{rr.adapter}})
	r := &scenarioRig{runtimeRig: rr, rt: rt, tb: t, url: d.URL(), token: d.Token(), mark: mark, proved: map[string]bool{}}
	ctx := testCtx(t)
	_, init := Connect(t, ctx, r.url, r.token)
	reg := init.Capabilities.RuntimeRegistry
	if len(reg.Runtimes) != 1 || reg.Runtimes[0].ID != rt.id || reg.DefaultRuntime != rt.id {
		t.Fatalf("registry = %+v, want %s alone", reg, rt.id)
	}
	r.record = reg.Runtimes[0]
	return r
}

// client connects and initializes a client.
func (r *scenarioRig) client(t *testing.T, ctx context.Context) (*Client, rpc.InitializeResult) {
	t.Helper()
	return Connect(t, ctx, r.url, r.token)
}

// workspace adds a new directory, removed when tb ends, as a workspace: a
// scenario that counts processes or sessions gets one of its own.
func (r *scenarioRig) workspace(tb testing.TB, ctx context.Context, c *Client) rpc.Workspace {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	return w
}

// start starts a new session in w and returns its id, the one the runtime
// chose unless the runtime lets clients choose.
func (r *scenarioRig) start(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, mode rpc.PermissionMode) string {
	t.Helper()
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: r.rt.id, PermissionMode: mode}, &res)
	if res.SessionID == "" || res.Status != rpc.StartStarted || res.Source != "new" || res.WorkspaceID != w.ID || res.AgentType != r.rt.id {
		t.Fatalf("session/start = %+v", res)
	}
	if err := runtimes.ValidSessionID(res.SessionID); err != nil {
		t.Fatalf("session id %q: %v", res.SessionID, err)
	}
	return res.SessionID
}

// send starts a turn and returns the last seq c had of the session before.
func (r *scenarioRig) send(t *testing.T, ctx context.Context, c *Client, id, prompt string) int64 {
	t.Helper()
	before := lastSeq(c, id)
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: prompt, AgentType: r.rt.id}, &res)
	if res.Status != "sent" || res.SessionID != id || res.AgentType != r.rt.id {
		t.Fatalf("session/send = %+v", res)
	}
	return before
}

// end waits for the first terminal event after seq after and returns it
// with the session's events from after+1 to it.
func (r *scenarioRig) end(t *testing.T, ctx context.Context, c *Client, id string, after int64) (Notification, []Notification) {
	t.Helper()
	var end Notification
	if err := c.Until(ctx, func(ns []Notification) bool {
		for _, n := range ns {
			if n.Header().SessionID == id && n.Seq() > after && isTerminal(n) {
				end = n
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("awaiting the end of the turn: %v", err)
	}
	return end, between(c.SessionEvents(id), after+1, end.Seq()+1)
}

// turn sends prompt, waits for its turn_completed and returns the turn's events.
func (r *scenarioRig) turn(t *testing.T, ctx context.Context, c *Client, id, prompt string) []Notification {
	t.Helper()
	end, evs := r.end(t, ctx, c, id, r.send(t, ctx, c, id, prompt))
	if end.Type() != rpc.EventTurnCompleted {
		t.Fatalf("turn %q ended with %s; events %v", prompt, end, types(evs))
	}
	return evs
}

// watch makes c watch session id and returns the last seq before.
func (r *scenarioRig) watch(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id string) rpc.WatchResult {
	t.Helper()
	var res rpc.WatchResult
	c.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: r.rt.id}, &res)
	if !res.Watching || res.SessionID != id || res.Gap || res.Replayed != 0 {
		t.Fatalf("watch = %+v", res)
	}
	return res
}

// messages is a session's whole stored transcript, over the wire.
func (r *scenarioRig) messages(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id string) rpc.MessagesResult {
	t.Helper()
	var res rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: r.rt.id, Limit: 500}, &res)
	return res
}

// history lists w's sessions of this runtime.
func (r *scenarioRig) history(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace) rpc.HistoryResult {
	t.Helper()
	var h rpc.HistoryResult
	c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: r.rt.id}, &h)
	return h
}

// procs lists the running processes of this runtime's CLIs, at any depth,
// whose working directory is dir.
func (r *scenarioRig) procs(dir string) []int {
	var out []int
	for _, pid := range proctest.Marked(r.mark) {
		if cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd")); err == nil && cwd == dir {
			out = append(out, pid)
		}
	}
	return out
}

// awaitNoProcs waits until no process of the CLI runs in dir.
func (r *scenarioRig) awaitNoProcs(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	pollUntil(t, ctx, "no process left in "+dir, func() bool { return len(r.procs(dir)) == 0 })
}

// awaitState waits for a pty_state of session id after seq after. The
// prompt's own event comes first: session/state may lag it until then.
func awaitState(t *testing.T, ctx context.Context, c *Client, id string, want rpc.PtyState, after int64) {
	t.Helper()
	if err := c.Until(ctx, func(ns []Notification) bool {
		return slices.ContainsFunc(ns, func(n Notification) bool {
			var s rpc.StateEvent
			return Event(rpc.EventState, id)(n) && n.Seq() > after && n.Decode(&s) == nil && s.State == want && s.WaitingForInput
		})
	}); err != nil {
		t.Fatalf("no pty_state %s: %v", want, err)
	}
}

// permissionKeys are the option keys a shell command's pty_permission
// offers, in order.
func (r *scenarioRig) permissionKeys() []string {
	if r.rt.permissionKeys != nil {
		return r.rt.permissionKeys
	}
	return []string{"yes", "always", "no"}
}

// permission decodes a pty_permission event.
func permission(t *testing.T, n Notification) rpc.PermissionEvent {
	t.Helper()
	var p rpc.PermissionEvent
	if err := n.Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p
}
