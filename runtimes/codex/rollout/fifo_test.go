//go:build unix

package rollout

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

// promptly fails t unless fn returns within waitTimeout. The open of a
// FIFO blocks until a writer comes: on a timeout each of fifos is opened
// for writing, which lets a reader stuck in its open go on, so that the
// failing test leaves no goroutine behind.
func promptly(t *testing.T, what string, fifos []string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		if t.Failed() {
			t.FailNow()
		}
	case <-time.After(waitTimeout):
		for _, p := range fifos {
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
		<-done
		t.Fatalf("%s: still blocked after %v", what, waitTimeout)
	}
}

// TestFIFORollout: a FIFO where a rollout was, or where the day folder a
// thread id dates is, makes messages say there is no such thread, at once
// (the open of a FIFO waits for a writer, pinning a thread each time).
func TestFIFORollout(t *testing.T) {
	home, ws, _, paths := setup(t)
	ctx := context.Background()
	s := newStore(t, home)
	if _, _, err := s.Messages(ctx, ws, threadA, 0, 10, false); err != nil {
		t.Fatal(err)
	}
	// Replaced by a FIFO once found.
	if err := os.Remove(paths[threadA]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(paths[threadA], 0o600); err != nil {
		t.Fatal(err)
	}
	promptly(t, "messages of a rollout replaced by a FIFO", []string{paths[threadA]}, func() {
		if _, _, err := s.Messages(ctx, ws, threadA, 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
			t.Errorf("Messages: %v, want ErrNoSession", err)
		}
	})

	// A FIFO for the day folder of a thread id not seen yet.
	const id = "01900000-0000-7000-8000-0000000000ff" // dated June 2024: no folder of setup's
	ms, _ := uuid7Millis(id)
	day := time.UnixMilli(ms)
	dir := filepath.Join(home, "sessions", day.Format("2006"), day.Format("01"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, day.Format("02"))
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	promptly(t, "messages of a thread whose day folder is a FIFO", []string{fifo}, func() {
		if _, _, err := s.Messages(ctx, ws, id, 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
			t.Errorf("Messages: %v, want ErrNoSession", err)
		}
	})
	promptly(t, "history with a FIFO for a day folder", []string{fifo}, func() {
		if list, err := s.List(ctx, ws); err != nil || len(list) != 1 {
			t.Errorf("List = %v, %v; want thread C alone", ids(list), err)
		}
	})
}
