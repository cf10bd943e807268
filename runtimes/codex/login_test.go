package codex

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
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

// The real CLI: with no credentials at all `codex login status` says "Not
// logged in", so the registry disables it and says how to log in; after
// `codex login --with-api-key` it is logged in; with the harness's model
// provider (a fake API whose key comes from OPENAI_API_KEY) it is active,
// and with that variable unset, disabled, naming it. None asks the model.
func TestLiveLogin(t *testing.T) {
	bin := codextest.Bin(t)
	api := fakeopenai.New(t)

	bare := clitest.Env(t)
	out := New(Config{Bin: bin, Env: bare, Logger: zaptest.NewLogger(t)})
	av := out.Detect(context.Background())
	if !av.Installed || av.Usable() || av.Login != runtimes.LoggedOut || !strings.Contains(av.Reason, "`codex login`") {
		t.Errorf("no credentials: %+v", av)
	}
	rec := record(t, out)
	if rec.Status != rpc.RuntimeDisabled || rec.Availability.Login != rpc.LoggedOut || rec.Availability.Reason != av.Reason {
		t.Errorf("no credentials, record: %+v", rec)
	}
	t.Logf("no credentials: status %s, availability %+v", rec.Status, rec.Availability)

	// Logging in, with the CLI's own command (it stores the key, asks nothing).
	login := exec.Command(bin, "login", "--with-api-key")
	login.Env, login.Stdin = bare, strings.NewReader("sk-test\n")
	if b, err := login.CombinedOutput(); err != nil {
		t.Fatalf("codex login: %v\n%s", err, b)
	}
	if av := out.Detect(context.Background()); !av.Usable() || av.Login != runtimes.LoggedIn {
		t.Errorf("after codex login: %+v", av)
	}

	env := codextest.Env(t, api.BaseURL())
	in := New(Config{Bin: bin, Env: env, Logger: zaptest.NewLogger(t)})
	if rec := record(t, in); rec.Status != rpc.RuntimeActive || rec.Availability.Login != rpc.LoggedIn {
		t.Errorf("provider with its key, record: %+v", rec)
	}

	noKey := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "OPENAI_API_KEY=") })
	av = New(Config{Bin: bin, Env: noKey, Logger: zaptest.NewLogger(t)}).Detect(context.Background())
	if av.Usable() || av.Login != runtimes.LoggedOut || !strings.Contains(av.Reason, "set OPENAI_API_KEY") {
		t.Errorf("provider without its key: %+v", av)
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("detection made %d requests to the model API", n)
	}
}
