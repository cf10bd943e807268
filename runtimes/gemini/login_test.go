package gemini

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/internal/clitest"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
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

// The real CLI: with no credentials at all (no key, no auth type in
// settings) the registry disables it and says how to set one; with the
// harness's (the API key selected in settings.json, a fake API) it is
// active. Neither asks the model anything.
func TestLiveLogin(t *testing.T) {
	bin := geminitest.Bin(t)
	api := fakegemini.New(t)

	out := New(Config{Bin: bin, Env: clitest.Env(t), Logger: zaptest.NewLogger(t)})
	rec := record(t, out)
	if !rec.Availability.Installed || rec.Status != rpc.RuntimeDisabled || rec.Availability.Login != rpc.LoggedOut ||
		!strings.Contains(rec.Availability.Reason, "set GEMINI_API_KEY") {
		t.Errorf("no credentials, record: %+v", rec)
	}
	t.Logf("no credentials: status %s, availability %+v", rec.Status, rec.Availability)

	in := New(Config{Bin: bin, Env: geminitest.Env(t, api.URL()), Logger: zaptest.NewLogger(t)})
	if rec := record(t, in); rec.Status != rpc.RuntimeActive || rec.Availability.Login != rpc.LoggedIn {
		t.Errorf("API key, record: %+v", rec)
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("detection made %d requests to the model API", n)
	}
}

// checkLogin reads what Gemini reads: the selected auth type and what it
// needs; what it cannot know stays unknown.
func TestCheckLogin(t *testing.T) {
	for _, c := range []struct {
		name, settings, dotenv string
		env                    []string
		oauth                  bool
		want                   runtimes.Login
		reason                 string
	}{
		{name: "nothing", want: runtimes.LoggedOut, reason: "no auth type"},
		{name: "api key selected, none set", settings: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`,
			want: runtimes.LoggedOut, reason: "GEMINI_API_KEY is not set"},
		{name: "api key selected and set", settings: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`,
			env: []string{"GEMINI_API_KEY=k"}, want: runtimes.LoggedIn},
		{name: "api key in ~/.gemini/.env", settings: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`,
			dotenv: "GEMINI_API_KEY=k\n", want: runtimes.LoggedIn},
		{name: "google login, no creds", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`,
			want: runtimes.LoggedOut, reason: "sign in with Google"},
		{name: "google login", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`,
			oauth: true, want: runtimes.LoggedIn},
		{name: "vertex, nothing known", settings: `{"security":{"auth":{"selectedType":"vertex-ai"}}}`, want: runtimes.LoginUnknown},
		{name: "key but no type", env: []string{"GEMINI_API_KEY=k"}, want: runtimes.LoginUnknown},
		{name: "settings with comments", settings: "// mine\n{}", want: runtimes.LoginUnknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".gemini")
			os.Mkdir(dir, 0o700) //nolint:errcheck
			if c.settings != "" {
				os.WriteFile(filepath.Join(dir, "settings.json"), []byte(c.settings), 0o600) //nolint:errcheck
			}
			if c.dotenv != "" {
				os.WriteFile(filepath.Join(dir, ".env"), []byte(c.dotenv), 0o600) //nolint:errcheck
			}
			if c.oauth {
				os.WriteFile(filepath.Join(dir, "oauth_creds.json"), []byte("{}"), 0o600) //nolint:errcheck
			}
			got := checkLogin(append([]string{"HOME=" + home}, c.env...), dir)
			if got.State != c.want || (c.reason != "" && !strings.Contains(got.Reason, c.reason)) ||
				(c.want != runtimes.LoggedOut && got.Reason != "") {
				t.Errorf("got %+v, want %s (%q)", got, c.want, c.reason)
			}
		})
	}
}
