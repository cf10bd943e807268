package chats

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(freshPageEnv); dir != "" {
		os.Exit(freshPage(dir)) // a child of BenchmarkRestartFresh
	}
	goleak.VerifyTestMain(m)
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Ids of the sessions in testdata.
const (
	sessionA = "6c458196-2d49-4bde-9f87-6abab2327664" // session.jsonl (+ load.jsonl)
	phantomP = "9f000000-0000-4000-8000-0000000000aa" // phantom.jsonl
	sessionR = "7a000000-0000-4000-8000-0000000000bb" // reset.jsonl
)

// waitTimeout bounds every wait for the watcher; generous for a loaded CI.
const waitTimeout = 10 * time.Second

// install copies testdata/<name> into home's tmp/<slug>/chats as the chat
// file stamped stamp of session id, its projectHash placeholder replaced by
// ws's; it returns the file's path.
func install(t testing.TB, home, slug, name, stamp, id, ws string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("PROJECTHASH"), []byte(ProjectHash(ws)))
	dir := filepath.Join(home, "tmp", slug, "chats")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "session-"+stamp+"-"+id8(id)+".jsonl")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// fixture is a Gemini home with the testdata sessions of workspace ws.
type fixture struct {
	home, ws string
	main     string // session.jsonl's path
	load     string // load.jsonl's path (same session, no user message)
	s        *Store
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	home, ws := filepath.Join(t.TempDir(), ".gemini"), t.TempDir()
	f := fixture{home: home, ws: ws}
	f.main = install(t, home, "proj", "session.jsonl", "2026-11-22T22-31", sessionA, ws)
	f.load = install(t, home, "proj", "load.jsonl", "2026-11-22T22-40", sessionA, ws)
	install(t, home, "proj", "phantom.jsonl", "2026-11-22T22-50", phantomP, ws)
	install(t, home, "proj", "reset.jsonl", "2026-11-22T23-00", sessionR, ws)
	// The same session file of another workspace, under another slug.
	install(t, home, "other", "session.jsonl", "2026-11-22T22-31", "11111111-2d49-4bde-9f87-6abab2327664", "/elsewhere")
	f.s = New(home, nil)
	t.Cleanup(func() { f.s.Close() }) // List's watches
	return f
}
