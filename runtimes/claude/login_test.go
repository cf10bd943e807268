package claude

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// record is the runtime's record in a registry of the adapter alone.
func record(t *testing.T, a runtimes.Adapter) rpc.Runtime {
	t.Helper()
	reg, err := registry.New(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return reg.Snapshot(context.Background()).Runtimes[0]
}

// The real CLI, asked by its own `claude auth status`: with no credentials
// at all it is installed but cannot answer, so the registry disables it and
// says how to log in; with an API key (the harness's, at a fake API) it is
// active. Neither asks the model anything.
func TestLiveLogin(t *testing.T) {
	bin := claudetest.Bin(t)
	api := fakeanthropic.New(t)

	bare := append(clitest.Env(t), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1", "ANTHROPIC_BASE_URL="+api.URL())
	out := New(Config{Bin: bin, Env: bare, Logger: zaptest.NewLogger(t)})
	av := out.Detect(context.Background())
	if !av.Installed || av.Usable() || av.Login != runtimes.LoggedOut ||
		!strings.Contains(av.Reason, "run `claude` once in a terminal and log in") {
		t.Errorf("no credentials: %+v", av)
	}
	rec := record(t, out)
	if rec.Status != rpc.RuntimeDisabled || rec.Availability.Login != rpc.LoggedOut || rec.Availability.Reason != av.Reason {
		t.Errorf("no credentials, record: %+v", rec)
	}
	t.Logf("no credentials: status %s, availability %+v", rec.Status, rec.Availability)

	in := New(Config{Bin: bin, Env: claudetest.Env(t, api.URL()), Logger: zaptest.NewLogger(t)})
	if av := in.Detect(context.Background()); !av.Usable() || av.Login != runtimes.LoggedIn {
		t.Errorf("API key: %+v", av)
	}
	if rec := record(t, in); rec.Status != rpc.RuntimeActive || rec.Availability.Login != rpc.LoggedIn {
		t.Errorf("API key, record: %+v", rec)
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("detection made %d requests to the model API", n)
	}
}
