package geminitest

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestEnvIsHermetic(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "outer-9f3a")
	t.Setenv("GOOGLE_API_KEY", "outer-9f3a")
	t.Setenv("GOOGLE_CLOUD_PROJECT", "outer-9f3a")
	env := Env(t, "http://127.0.0.1:9")
	for _, kv := range env {
		if strings.Contains(kv, "outer-9f3a") || strings.HasPrefix(kv, "GOOGLE_API_KEY=") {
			t.Errorf("outer variable leaked: %s", kv)
		}
	}
	for _, want := range []string{"GEMINI_API_KEY=" + APIKey, "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9",
		"GEMINI_CLI_NO_RELAUNCH=true", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"} {
		if !slices.Contains(env, want) {
			t.Errorf("missing %s in %v", want, env)
		}
	}
	home := Home(env)
	if home == "" || home == Home(Env(t, "x")) {
		t.Errorf("HOME %q is not a fresh directory per call", home)
	}
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	var got, want map[string]any
	_ = json.Unmarshal(b, &got)
	wb, _ := json.Marshal(Settings)
	_ = json.Unmarshal(wb, &want)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("settings.json (%v):\n%s", err, b)
	}
	if auth := fmt.Sprint(got["security"]); !strings.Contains(auth, "gemini-api-key") {
		t.Errorf("settings do not select API-key auth: %s", auth)
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
	t.Setenv("GEMINI_BIN", "/nonexistent/gemini")
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Bin(tb)
	}()
	<-done
	if !strings.Contains(tb.msg, "npm ci") || !strings.Contains(tb.msg, "GEMINI_BIN") {
		t.Errorf("Bin did not fail with the fix: %q", tb.msg)
	}
}

func TestBinFindsThePinnedCLI(t *testing.T) {
	t.Setenv("GEMINI_BIN", "")
	if bin := Bin(t); !strings.HasSuffix(bin, filepath.Join("node_modules", ".bin", "gemini")) {
		t.Errorf("Bin = %q", bin)
	}
}
