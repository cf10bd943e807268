package sessions

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

// firstAdapter is a second runtime, registered first: the default.
type firstAdapter struct{ *memAdapter }

func (firstAdapter) Info() runtimes.Info { return runtimes.Info{ID: "first", DisplayName: "First"} }

// A workspace event reaches each subscriber with the runtime it uses there:
// that of the session it watches, else the workspace's active session's,
// else the default; and never with a session_id.
func TestWorkspaceEventsCarryTheSubscribersRuntime(t *testing.T) {
	mem := newMem()
	reg, err := registry.New(firstAdapter{newMem()}, mem)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := workspaces.Open(filepath.Join(dir, "ws.json"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Add(dir, "", false)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{Registry: reg, Workspaces: store, TrashDir: filepath.Join(dir, "trash"), IdleTimeout: -1})
	t.Cleanup(func() { e.Close(context.Background()) })

	watching, onlySubscribed, elsewhere := newRecorder("watching"), newRecorder("sub"), newRecorder("none")
	for _, w := range []Watcher{watching, onlySubscribed} {
		if _, err := e.Subscribe(w, ws.ID); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.Start(context.Background(), watching, StartOptions{WorkspaceID: ws.ID, AgentType: "mem"})
	if err != nil {
		t.Fatal(err)
	}
	<-mem.started
	notify := func() {
		e.NotifyWorkspace(ws.ID, "git_status_changed", func(agent string) any {
			return map[string]any{"workspace_id": ws.ID, "agent_type": agent}
		})
	}
	notify()
	if ev := watching.await(t, "event/git_status_changed"); ev["agent_type"] != "mem" || ev["session_id"] != nil {
		t.Errorf("to the session's watcher: %v", ev)
	}
	if ev := onlySubscribed.await(t, "event/git_status_changed"); ev["agent_type"] != "first" {
		t.Errorf("to a subscriber without a session: %v, want the default runtime", ev)
	}
	if err := e.Activate(ws.ID, res.SessionID, "mem"); err != nil {
		t.Fatal(err)
	}
	notify()
	if ev := awaitNth(t, onlySubscribed, "event/git_status_changed", 2); ev["agent_type"] != "mem" {
		t.Errorf("after the workspace's session was activated: %v", ev)
	}
	// A client that says which runtime it uses there is believed first.
	says := &sayingRecorder{recorder: newRecorder("says"), agent: "first"}
	if _, err := e.Subscribe(says, ws.ID); err != nil {
		t.Fatal(err)
	}
	notify()
	if ev := says.await(t, "event/git_status_changed"); ev["agent_type"] != "first" {
		t.Errorf("to a client that says its runtime: %v", ev)
	}
	if n := elsewhere.count("event/git_status_changed"); n != 0 {
		t.Errorf("a client not subscribed got %d", n)
	}
	if !e.HasSubscribers(ws.ID) {
		t.Error("HasSubscribers = false")
	}
}

// awaitNth waits for r's nth event of method and returns it.
func awaitNth(t *testing.T, r *recorder, method string, n int) map[string]any {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		seen := 0
		for _, ev := range r.events() {
			if ev["_method"] == method {
				if seen++; seen == n {
					return ev
				}
			}
		}
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("no event %d of %s", n, method)
		}
	}
}

// sayingRecorder is a client that knows the runtime it uses in a workspace.
type sayingRecorder struct {
	*recorder
	agent string
}

func (r *sayingRecorder) AgentTypeIn(string) string { return r.agent }
