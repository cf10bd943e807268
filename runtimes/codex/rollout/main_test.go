package rollout

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
	goleak.VerifyTestMain(m)
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Placeholders the committed rollouts hold instead of the temporary paths
// they were captured with.
const (
	wsPlaceholder   = "/home/user/project"
	homePlaceholder = "/home/user/.codex"
)

// threadA is the thread id of testdata/exec.jsonl.
const threadA = "01a205e0-a448-76a0-adec-4d1891b415fb"

// waitTimeout bounds every wait for the watcher; generous for a loaded CI.
const waitTimeout = 10 * time.Second

// install copies testdata/<name> into codexHome's sessions as the rollout
// of thread id, dated day, with its recorded workspace replaced by ws; it
// returns the rollout's path.
func install(t testing.TB, codexHome, name, day, id, ws string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(wsPlaceholder), []byte(ws))
	b = bytes.ReplaceAll(b, []byte(threadA), []byte(id))
	dir := filepath.Join(codexHome, "sessions", filepath.FromSlash(day))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "rollout-2026-11-23T00-48-57-"+id+".jsonl")
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

// newStore is New(codexHome, nil), closed when the test ends: List watches
// the sessions tree until then.
func newStore(tb testing.TB, codexHome string) *Store {
	tb.Helper()
	s := New(codexHome, nil)
	tb.Cleanup(func() { s.Close() })
	return s
}
