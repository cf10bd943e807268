package gemini

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
)

// faultWithin bounds a failing turn: Gemini's own retries when the user's
// settings make them few (general.maxAttempts 2: one retry, about 5 s
// after the first call), or the model's silence cdevd allows (silence).
const faultWithin = 60 * time.Second

// silence is the ModelSilence of the case that shows it: short, so that
// the test does not wait the default's 90 s.
const silence = 10 * time.Second

// TestLiveAPIFaults: the real gemini --acp, run by the adapter, against a
// fake API that answers 401, 429, 500 or 400, or a port that refuses
// connections. Each turn ends within faultWithin with one error whose code
// says why and whose message is the API's words once (Gemini announces no
// retry in ACP mode). Gemini retries a 429, a 500 or a refused connection
// silently, up to general.maxAttempts calls: with the user's settings
// asking for 2, Gemini itself ends the turn with its error; with its
// default (10 calls, about four minutes), cdevd gives the turn up after
// ModelSilence without a word from the model, as stall_timeout. A 401
// disables the runtime by the time the client hears of it; the other
// faults leave it active.
func TestLiveAPIFaults(t *testing.T) {
	api := fakegemini.New(t)
	api.Respond(func(r fakegemini.Request) fakegemini.Reply {
		status, _, _ := strings.Cut(r.LastUserText(), " ")
		switch status {
		case "401":
			return fakegemini.Fail(401, "UNAUTHENTICATED", "fake says 401")
		case "429":
			return fakegemini.Fail(429, "RESOURCE_EXHAUSTED", "fake says 429")
		case "500":
			return fakegemini.Fail(500, "INTERNAL", "fake says 500")
		case "400":
			return fakegemini.Fail(400, "INVALID_ARGUMENT", "fake says 400")
		}
		return fakegemini.Echo(r)
	})
	refused := "http://" + clitest.ClosedAddr(t)
	for _, c := range []struct {
		prompt, url  string
		maxAttempts  int           // the user's general.maxAttempts; 0: Gemini's default (10)
		modelSilence time.Duration // the adapter's; 0: its default
		code         string
		message      string
		calls        int    // the model calls Gemini makes; -1: at least one
		next         string // a prompt whose turn must then complete
	}{
		{"401", api.URL(), 0, 0, runtimes.CodeAuthRequired, "fake says 401", 1, ""},
		{"400", api.URL(), 0, 0, runtimes.CodeRefused, "fake says 400", 1, ""},
		{"429", api.URL(), 2, 0, runtimes.CodeRateLimited, "fake says 429", 2, ""},
		{"500", api.URL(), 2, 0, runtimes.CodeServerError, "fake says 500", 2, "hello after a 500"},
		{"refused", refused, 2, 0, runtimes.CodeUnreachable, "fetch failed", 0, ""},
		// Given up by cdevd: Gemini's prompt cancelled, the session goes on.
		{"429 with Gemini's default retries", api.URL(), 0, silence, runtimes.CodeStallTimeout,
			"no answer from the model for 10s; cancelled", -1, "hello after the silence"},
	} {
		t.Run(c.prompt, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			env := geminitest.Env(t, c.url)
			if c.maxAttempts != 0 {
				setMaxAttempts(t, env, c.maxAttempts)
			}
			a := New(Config{Bin: geminitest.Bin(t), Env: env, ModelSilence: c.modelSilence,
				KillGrace: 5 * time.Second, Logger: zaptest.NewLogger(t)})
			reg, err := registry.New(a)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(reg.Close)
			if rec := reg.Snapshot(context.Background()).Runtimes[0]; rec.Status != rpc.RuntimeActive {
				t.Fatalf("before the turn: %+v", rec.Availability)
			}
			var atEnd rpc.Runtime
			end := adaptertest.RunFault(t, adaptertest.Fault{Adapter: a, Dir: dir, Prompt: c.prompt, Within: faultWithin,
				AtEnd: func(runtimes.Event) { atEnd = reg.Snapshot(context.Background()).Runtimes[0] }, Next: c.next})
			if end.Failed.Code != c.code || strings.Count(end.Failed.Message, c.message) != 1 {
				t.Errorf("failed %+v, want %s saying %q once", end.Failed, c.code, c.message)
			}
			if c.code == runtimes.CodeStallTimeout && end.Took < c.modelSilence {
				t.Errorf("given up after %v, before the silence of %v", end.Took, c.modelSilence)
			}
			if len(end.Retries) != 0 {
				t.Errorf("retries shown %+v: Gemini 0.61.0 announces none", end.Retries)
			}
			calls := len(api.RequestsWhere(func(r fakegemini.Request) bool { return r.LastUserText() == c.prompt }))
			if calls != c.calls && (c.calls >= 0 || calls == 0) {
				t.Errorf("%d model calls, want %d", calls, c.calls)
			}
			adaptertest.CheckRecordAfterFault(t, reg, ID, c.code, atEnd, loginFix)
		})
	}
}

// setMaxAttempts sets general.maxAttempts in the user's settings.json, as
// a user may (Gemini's most, and default, is 10).
func setMaxAttempts(t *testing.T, env []string, n int) {
	t.Helper()
	path := filepath.Join(geminitest.Home(env), ".gemini", "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var settings map[string]map[string]any
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	settings["general"]["maxAttempts"] = n
	if b, err = json.Marshal(settings); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
