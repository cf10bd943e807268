package main

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
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

	// A browser subscribed (as serve keeps it): the test reaches it too.
	pushed := make(chan struct{}, 1)
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pushed <- struct{}{}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(service.Close)
	if _, err := notify.LoadVAPID(home); err != nil {
		t.Fatal(err)
	}
	subs, err := notify.OpenSubscriptions(home)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := subs.Add(notify.Subscription{Endpoint: service.URL + "/push", P256dh: base64.RawURLEncoding.EncodeToString(key.PublicKey().Bytes()),
		Auth: base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef"))}); err != nil {
		t.Fatal(err)
	}
	write(conf)
	out, errs, code = runCmd(t, map[string]string{"CDEVD_HOME": home}, "notify", "test")
	<-signed
	if code != 0 || !strings.Contains(out, "webpush  ok (") {
		t.Fatalf("notify test with a subscribed browser: exit %d, %q %q", code, out, errs)
	}
	<-pushed

	write("[[notify.webhook]]\nurl = \"file:///etc/passwd\"\nsecret = \"" + secret + "\"\n")
	_, errs, code = runCmd(t, map[string]string{"CDEVD_HOME": home}, "serve", "--addr", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errs, "config.toml:2:1: notify.webhook #1: url") {
		t.Fatalf("serve with a file: webhook: exit %d, %q", code, errs)
	}
}

// doctor shows each sink with its last failure, as the serving cdevd
// recorded it: a channel failing for weeks is seen there.
func TestDoctorShowsTheLastNotifyFailure(t *testing.T) {
	home := t.TempDir()
	conf := "[[notify.webhook]]\nname = \"laptop\"\nurl = \"https://hooks.example/\"\nsecret = \"0123456789abcdef0\"\nkinds = [\"permission\"]\n" +
		"[[notify.ntfy]]\nname = \"phone\"\ntopic = \"t\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	status := `[{"name":"laptop","type":"webhook","last_failure":"2026-11-01T10:00:00Z","last_error":"answered 500 Internal Server Error"}]`
	if err := os.WriteFile(filepath.Join(home, notify.StatusFileName), []byte(status), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"CDEVD_HOME": home, "CLAUDE_BIN": "/nonexistent/claude",
		"CODEX_BIN": "/nonexistent/codex", "GEMINI_BIN": "/nonexistent/gemini"}
	out, _, _ := runCmd(t, vars, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Notify) != 2 || rep.Notify[0].Name != "laptop" || rep.Notify[0].LastError != "answered 500 Internal Server Error" ||
		rep.Notify[0].LastFailure == "" || len(rep.Notify[0].Kinds) != 1 || rep.Notify[1].Name != "phone" ||
		rep.Notify[1].LastFailure != "" || len(rep.Notify[1].Kinds) != len(notify.Kinds) {
		t.Errorf("notify in the report: %+v", rep.Notify)
	}
	table, _, _ := runCmd(t, vars, "doctor")
	if !strings.Contains(table, "NOTIFY") || !strings.Contains(table, "answered 500 Internal Server Error") {
		t.Errorf("table:\n%s", table)
	}
}
