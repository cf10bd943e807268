package console_test

import (
	"context"
	"os"
	"testing"
	"time"

	cdevd "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// scriptedDaemon is cdevd serving one workspace with the scripted runtime,
// whose CLI is this test binary: what the browser tests of presence and
// notifications need, without a model API.
func scriptedDaemon(t *testing.T) *daemon.Daemon {
	t.Helper()
	return startDaemon(t, daemon.Config{Workspaces: []string{t.TempDir()}, Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir(), KillGrace: 2 * time.Second}),
	}})
}

// otherSide is a second client beside the console (a phone, say), and the
// scripted session it started in the daemon's one workspace.
type otherSide struct {
	ctx      context.Context // ends with the test, or after claudetest.Timeout
	client   *cdevd.Client
	wid, sid string
}

// startOtherSide connects a second client to d and starts a scripted
// session in d's one workspace.
func startOtherSide(t *testing.T, d *daemon.Daemon) otherSide {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), claudetest.Timeout)
	t.Cleanup(cancel)
	c, err := cdevd.Dial(ctx, cdevd.Config{URL: d.URL(), Token: d.Token()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	wss, err := c.WorkspaceList(ctx)
	if err != nil || len(wss) != 1 {
		t.Fatalf("workspaces %v, %v", wss, err)
	}
	st, err := c.SessionStart(ctx, rpc.SessionStartParams{WorkspaceID: wss[0].ID, AgentType: scripted.ID})
	if err != nil {
		t.Fatal(err)
	}
	return otherSide{ctx: ctx, client: c, wid: wss[0].ID, sid: st.SessionID}
}
