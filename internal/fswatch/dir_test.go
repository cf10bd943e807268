package fswatch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A directory two levels below what exists: files written there, before
// and after it is complete, are reported, and the instance ends on Close.
func TestWatchFilesAwaitsMissingLevels(t *testing.T) {
	w := New(Config{})
	root := t.TempDir()
	target := filepath.Join(root, "2026", "11", "23")
	files := make(chan string, 64)
	f, err := w.WatchFiles(target, func(p string) { files <- p }, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One level, then the rest with a file already in it.
	if err := os.Mkdir(filepath.Join(root, "2026"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	early := filepath.Join(target, "early.jsonl")
	if err := os.WriteFile(early, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFile(t, files, early)
	late := filepath.Join(target, "late.jsonl")
	if err := os.WriteFile(late, []byte("y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFile(t, files, late)
	// A file in an ancestor is not the target's.
	if err := os.WriteFile(filepath.Join(root, "2026", "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for len(files) > 0 {
		if p := <-files; filepath.Dir(p) != target {
			t.Fatalf("reported %s, outside %s", p, target)
		}
	}
	if n := w.watches(); n != 0 {
		t.Fatalf("%d watches left after Close", n)
	}
}

func waitFile(t *testing.T, files chan string, want string) {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case p := <-files:
			if p == want {
				return
			}
		case <-timeout:
			t.Fatalf("%s never reported", want)
		}
	}
}

func (w *Watcher) watches() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.dirs)
}
