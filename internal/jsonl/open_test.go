//go:build unix

package jsonl

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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

// TestOpenRegularFIFO: a FIFO, a directory, anything but a regular file is
// refused with ErrNotRegular, at once (a FIFO's plain open waits for a
// writer).
func TestOpenRegularFIFO(t *testing.T) {
	d := t.TempDir()
	fifo, file := filepath.Join(d, "fifo.jsonl"), filepath.Join(d, "file.jsonl")
	mkfifo(t, fifo)
	writeFile(t, file, "a\n")
	promptly(t, "OpenRegular of a FIFO", []string{fifo}, func() {
		if f, err := OpenRegular(fifo); !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenRegular(FIFO) = %v, %v; want ErrNotRegular", f, err)
			if f != nil {
				f.Close()
			}
		}
	})
	if _, err := OpenRegular(d); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenRegular(dir): %v, want ErrNotRegular", err)
	}
	if _, err := OpenRegular(filepath.Join(d, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenRegular(missing): %v, want ErrNotExist", err)
	}
	f, err := OpenRegular(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 2)
	if _, err := f.ReadAt(b, 0); err != nil || string(b) != "a\n" {
		t.Errorf("read %q, %v", b, err)
	}
	promptly(t, "OpenDir of a FIFO", []string{fifo}, func() {
		if _, err := OpenDir(fifo); !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenDir(FIFO): %v, want ErrNotRegular", err)
		}
	})
	df, err := OpenDir(d)
	if err != nil {
		t.Fatal(err)
	}
	df.Close()
}

// TestFollowFIFO: Follow of a path where a FIFO is starts at once, reads
// nothing from it, and reads the file that replaces it.
func TestFollowFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	mkfifo(t, p)
	var fl *followed
	promptly(t, "Follow of a FIFO", []string{p}, func() {
		fl = follow(t, context.Background(), nil, p, nil)
	})
	fl.expectLog("test is not a regular file")
	replaceFile(t, p, "a\nb\n")
	fl.expect("0:a", "2:b")
}
