package chats

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The helpers that open a chat file or folder by a name a listing found
// refuse a FIFO put in its place meanwhile, at once: its open would wait
// for a writer, pinning an OS thread per call.
func TestFIFOInPlaceOfAChat(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "session-2026-01-01T00-00-abcdef12.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(){
		"Head": func() {
			fi, err := os.Lstat(fifo)
			if err != nil {
				t.Fatal(err)
			}
			s := New(dir, nil)
			defer s.Close()
			if _, ok := s.Head(fifo, fi); ok {
				t.Error("Head of a FIFO: ok")
			}
		},
		// A chats folder that is a link (which the store follows) to a FIFO.
		"Has": func() {
			chats := filepath.Join(dir, "tmp", "p", "chats")
			if err := os.MkdirAll(filepath.Dir(chats), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(fifo, chats); err != nil {
				t.Fatal(err)
			}
			s := New(dir, nil)
			defer s.Close()
			if s.Has(context.Background(), "/ws", "abcdef12-0000-4000-8000-000000000000") {
				t.Error("Has through a FIFO folder: true")
			}
		},
	}
	for name, call := range calls {
		done := make(chan struct{})
		go func() { defer close(done); call() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			// Release the open so that the goroutine ends, then fail.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
			<-done
			t.Errorf("%s of a FIFO blocked", name)
		}
	}
}
