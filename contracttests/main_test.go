package contracttests

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

var updateWire = flag.Bool("update", false, "rewrite the wire corpus (testdata/wire) from this run's frames")

func TestMain(m *testing.M) {
	if scripted.IsCLI() {
		scripted.Main()
		return
	}
	goleak.VerifyTestMain(withWire{m})
}

// withWire writes the wire corpus after a whole run with -update.
type withWire struct{ m *testing.M }

func (w withWire) Run() int {
	code := w.m.Run()
	if *updateWire && code == 0 {
		if err := writeWire(); err != nil {
			fmt.Fprintln(os.Stderr, "write the wire corpus:", err)
			return 1
		}
	}
	return code
}

// wait bounds each test's waiting; nothing here should come close to it.
const wait = 60 * time.Second

// External target: a cdevd started by someone else.
const (
	envURL   = "CDEVD_CONTRACT_URL"
	envToken = "CDEVD_CONTRACT_TOKEN"
)

func external() (url, token string, ok bool) {
	url, token = os.Getenv(envURL), os.Getenv(envToken)
	return url, token, url != "" && token != ""
}

// env is the cdevd a test talks to.
type env struct {
	t     *testing.T
	url   string
	token string
	d     *daemon.Daemon // nil for an external server
	home  string
	// scripted is the in-process daemon's scripted runtime configuration.
	scripted scripted.Config
}

// option adjusts an in-process daemon before it starts.
type option func(*daemon.Config, *scripted.Config)

// newEnv is the server of a test that needs nothing but the wire: the
// external one when configured, else a fresh in-process daemon.
func newEnv(t *testing.T) *env {
	if url, token, ok := external(); ok {
		return &env{t: t, url: url, token: token}
	}
	return startEnv(t)
}

// startEnv starts cdevd in process with the scripted runtime (registered
// first, so it is the default). Tests that need it cannot run against an
// external server, so they skip there.
func startEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	inProcessOnly(t)
	dc := daemon.Config{Home: t.TempDir()}
	sc := scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()}
	for _, o := range opts {
		o(&dc, &sc)
	}
	dc.Adapters = append([]runtimes.Adapter{scripted.New(sc)}, dc.Adapters...)
	d := StartDaemon(t, dc)
	return &env{t: t, url: d.URL(), token: d.Token(), d: d, home: dc.Home, scripted: sc}
}

// inProcessOnly skips a test that needs cdevd in process when the suite
// targets an external server.
func inProcessOnly(t *testing.T) {
	t.Helper()
	if _, _, ok := external(); ok {
		t.Skipf("needs cdevd in process with the scripted runtime; %s targets an external server", envURL)
	}
}

// ctx bounds one test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	t.Cleanup(cancel)
	return ctx
}

// connect dials and initializes a client.
func (e *env) connect(ctx context.Context) *Client {
	e.t.Helper()
	c, _ := Connect(e.t, ctx, e.url, e.token)
	return c
}

// workspace adds a new temporary directory as a workspace (removed from an
// external server when the test ends).
func (e *env) workspace(ctx context.Context, c *Client) rpc.Workspace {
	e.t.Helper()
	dir, err := filepath.EvalSymlinks(e.t.TempDir())
	if err != nil {
		e.t.Fatal(err)
	}
	var w rpc.Workspace
	c.MustCall(ctx, rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	if e.d == nil {
		e.t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cc := e.connect(ctx)
			cc.Call(ctx, rpc.MethodWorkspaceRemove, rpc.WorkspaceIDParams{WorkspaceID: w.ID})
		})
	}
	return w
}

// errData returns an error's data as an object.
func errData(t *testing.T, e *rpc.Error) map[string]any {
	t.Helper()
	m, ok := e.Data.(map[string]any)
	if !ok {
		t.Fatalf("error %d %q: data %v is not an object", e.Code, e.Message, e.Data)
	}
	return m
}

// wantError fails unless rerr is a JSON-RPC error with code.
func wantError(t *testing.T, what string, rerr *rpc.Error, code int64) {
	t.Helper()
	if rerr == nil {
		t.Fatalf("%s: succeeded, want error %d", what, code)
	}
	if rerr.Code != code {
		t.Fatalf("%s: error %d %q (data %v), want code %d", what, rerr.Code, rerr.Message, rerr.Data, code)
	}
}

// script builds a scripted-runtime prompt from steps.
func script(steps ...map[string]any) string {
	b, err := json.Marshal(map[string]any{"steps": steps})
	if err != nil {
		panic(err)
	}
	return string(b)
}
