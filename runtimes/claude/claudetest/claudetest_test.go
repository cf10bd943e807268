package claudetest

import (
	"fmt"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestEnvIsHermetic(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "outer-9f3a")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "outer-9f3a")
	env := Env(t, "http://127.0.0.1:9")
	for _, kv := range env {
		if strings.Contains(kv, "outer-9f3a") {
			t.Errorf("outer variable leaked: %s", kv)
		}
	}
	for _, want := range []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:9", "ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("missing %s in %v", want, env)
		}
	}
	if home := Home(env); home == "" || home == Home(Env(t, "x")) {
		t.Errorf("HOME %q is not a fresh directory per call", home)
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
	t.Setenv("CLAUDE_BIN", "/nonexistent/claude")
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
