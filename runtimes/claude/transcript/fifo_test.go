//go:build unix

package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

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

// TestFIFOTranscript: a FIFO named like a transcript is no session. Every
// call that could open it returns at once (a FIFO's open waits for a
// writer; 10,000 messages calls for one pinned as many threads and killed
// the daemon): messages says there is no such session, history leaves it
// out, watch starts and reads the file that replaces it, delete refuses it.
func TestFIFOTranscript(t *testing.T) {
	s, d := newStore(t)
	ctx := context.Background()
	fifo := filepath.Join(d, idA+".jsonl")
	mkfifo(t, fifo)
	writeSession(t, d, idB, newGen(idB).lines(2), time.Now())
	fifos := []string{fifo}

	promptly(t, "messages", fifos, func() {
		if _, _, err := s.Messages(ctx, workDir, idA, 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
			t.Errorf("Messages of a FIFO: %v, want ErrNoSession", err)
		}
	})
	promptly(t, "history", fifos, func() {
		list, err := s.List(ctx, workDir)
		if err != nil || len(list) != 1 || list[0].SessionID != idB {
			t.Errorf("List = %+v, %v; want only %s", list, err, idB)
		}
	})
	if s.Has(ctx, workDir, idA) {
		t.Error("Has(FIFO) = true")
	}
	if err := s.Trash(ctx, workDir, idA, failBin{t}); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Trash of a FIFO: %v, want ErrNoSession", err)
	}

	msgs := make(chan rpc.Message, 10)
	promptly(t, "watch", fifos, func() {
		c, err := s.Tail(ctx, workDir, idA, func(m rpc.Message) { msgs <- m })
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(func() { c.Close() })
	})
	// Replaced by a transcript: read from its start.
	tmp := filepath.Join(d, "tmp")
	if err := os.WriteFile(tmp, []byte(newGen(idA).lines(1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, fifo); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-msgs:
		if m.UUID != msgUUID(0) {
			t.Errorf("watch got %s, want %s", m.UUID, msgUUID(0))
		}
	case <-time.After(waitTimeout):
		t.Fatal("watch: no message from the transcript that replaced the FIFO")
	}
	promptly(t, "messages once replaced", nil, func() {
		if page, _, err := s.Messages(ctx, workDir, idA, 0, 10, false); err != nil || len(page) != 1 {
			t.Errorf("Messages = %d, %v; want 1 message", len(page), err)
		}
	})
}

// failBin is a trash that nothing may be put in.
type failBin struct{ t *testing.T }

func (b failBin) Put(path string) error {
	b.t.Errorf("%s put in the trash", path)
	return nil
}

// TestFIFOProjectFolder: a FIFO in place of a workspace's transcripts
// folder lists no sessions, at once.
func TestFIFOProjectFolder(t *testing.T) {
	s := New(t.TempDir(), nil)
	t.Cleanup(func() { s.Close() })
	d := s.Dir(workDir)
	mkfifo(t, d)
	promptly(t, "history", []string{d}, func() {
		if list, err := s.List(context.Background(), workDir); err != nil || len(list) != 0 {
			t.Errorf("List = %+v, %v; want none", list, err)
		}
	})
}
