package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/notify"
)

// `cdevd notify test` sends through every sink of config.toml and says how
// each went; a failed sink fails the command. serve refuses a mistake in
// [notify] with the file's line.
func TestNotifyTestCommand(t *testing.T) {
	const secret = "cmd-test-secret-0123456789"
	signed := make(chan bool, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		signed <- r.Header.Get(notify.SignatureHeader) == notify.Sign(secret, body) && strings.Contains(string(body), `"kind":"test"`)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	t.Cleanup(dead.Close)

	home := t.TempDir()
	conf := "[[notify.webhook]]\nname = \"laptop\"\nurl = \"" + hook.URL + "\"\nsecret = \"" + secret + "\"\n"
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(conf)
	out, errs, code := runCmd(t, map[string]string{"CDEVD_HOME": home}, "notify", "test")
	if code != 0 || !strings.Contains(out, "laptop") || !strings.Contains(out, "ok (") || !<-signed {
		t.Fatalf("notify test: exit %d, %q %q", code, out, errs)
	}
	if strings.Contains(out+errs, secret) {
		t.Errorf("the secret is printed: %q %q", out, errs)
	}

	write(conf + "[[notify.ntfy]]\nname = \"phone\"\nserver = \"" + dead.URL + "\"\ntopic = \"t\"\n")
	out, errs, code = runCmd(t, map[string]string{"CDEVD_HOME": home}, "notify", "test")
	<-signed
	if code == 0 || !strings.Contains(out, "FAILED: answered 403") || !strings.Contains(errs, "1 of 2 sinks failed") {
		t.Fatalf("notify test with a refusing sink: exit %d, %q %q", code, out, errs)
	}

	write("[[notify.webhook]]\nurl = \"file:///etc/passwd\"\nsecret = \"" + secret + "\"\n")
	_, errs, code = runCmd(t, map[string]string{"CDEVD_HOME": home}, "serve", "--addr", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errs, "config.toml:2:1: notify.webhook #1: url") {
		t.Fatalf("serve with a file: webhook: exit %d, %q", code, errs)
	}
}
