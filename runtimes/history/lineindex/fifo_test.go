//go:build unix

package lineindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// waitTimeout bounds a wait for what must come promptly.
const waitTimeout = 10 * time.Second

// mkfifo makes a FIFO at p.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}

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
			t.FailNow() // fn's t.Fatal ended only its own goroutine
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

// TestCacheFIFO: the Cache opens neither a FIFO in a file's place nor one in
// its persisted index's place: Get refuses the first at once, and a read
// with the second scans the file instead.
func TestCacheFIFO(t *testing.T) {
	e := newPersistEnv(t)
	c := e.cache("v1")
	fifo := filepath.Join(filepath.Dir(e.path), "fifo.jsonl")
	mkfifo(t, fifo)
	fi, err := os.Lstat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	promptly(t, "Cache.Get of a FIFO", []string{fifo}, func() {
		if _, err := c.Get(context.Background(), fifo, fi); !errors.Is(err, jsonl.ErrNotRegular) {
			t.Errorf("Get(FIFO): %v, want jsonl.ErrNotRegular", err)
		}
	})

	if err := os.MkdirAll(e.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	idx := c.savedName(e.path)
	mkfifo(t, idx)
	promptly(t, "a read with a FIFO for its persisted index", []string{idx}, func() {
		e.restart("v1", true)
	})
	if fi, err := os.Lstat(idx); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("persisted index after the scan: %v, %v; want a regular file (saved over the FIFO)", fi, err)
	}
}
