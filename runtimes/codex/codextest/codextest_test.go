package codextest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestEnvIsHermetic(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "outer-9f3a")
	t.Setenv("CODEX_HOME", "/outer-9f3a")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "outer-9f3a")
	env := Env(t, "http://127.0.0.1:9/v1")
	for _, kv := range env {
		if strings.Contains(kv, "outer-9f3a") || strings.HasPrefix(kv, "CODEX_HOME=") {
			t.Errorf("outer variable leaked: %s", kv)
		}
	}
	for _, want := range []string{"OPENAI_API_KEY=" + APIKey, "NO_PROXY=127.0.0.1,localhost"} {
		if !slices.Contains(env, want) {
			t.Errorf("missing %s in %v", want, env)
		}
	}
	home := Home(env)
	if home == "" || home == Home(Env(t, "x")) {
		t.Errorf("HOME %q is not a fresh directory per call", home)
	}
	config, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	for _, want := range []string{`model_provider = "fake"`, `base_url = "http://127.0.0.1:9/v1"`,
		`env_key = "OPENAI_API_KEY"`, `wire_api = "responses"`, "check_for_update_on_startup = false",
		"[analytics]\nenabled = false", "[features]\nplugins = false"} {
		if !strings.Contains(string(config), want) {
			t.Errorf("config.toml lacks %q (%v):\n%s", want, err, config)
		}
	}
	for _, kv := range env {
		if proxy, ok := strings.CutPrefix(kv, "HTTPS_PROXY=http://"); ok {
			if c, err := net.Dial("tcp", proxy); err == nil {
				c.Close()
				t.Errorf("something listens on the proxy %s", proxy)
			}
		}
	}
}

// fatalTB records a Fatal instead of failing the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestBinFailsWhenMissing(t *testing.T) {
	t.Setenv("CODEX_BIN", "/nonexistent/codex")
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Bin(tb)
	}()
	<-done
	if !strings.Contains(tb.msg, "npm ci") {
		t.Errorf("Bin did not fail with the fix: %q", tb.msg)
	}
}
