package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/internal/fswatch/fswatchtest"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// listIDs lists workDir and returns the session ids with their message
// counts and times, newest first.
func listIDs(t *testing.T, s *Store) string {
	t.Helper()
	got, err := s.List(context.Background(), workDir)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(got)
}

// fresh lists workDir with a new Store, which reads everything: what any
// List must return.
func fresh(t *testing.T, projects string) string {
	t.Helper()
	s := New(projects, nil)
	defer s.Close()
	return listIDs(t, s)
}

// TestListSeesEveryWrite: a List right after a change (no wait of any
// kind) reports it: a session created, appended to (its file held open),
// renamed into place, touched, truncated, deleted. A List with no change
// between reads nothing: the watch is what lets it, so the changes being
// seen proves the watch misses none.
func TestListSeesEveryWrite(t *testing.T) {
	s, d := newStore(t)
	projects := s.projectsDir
	base := time.Now().Add(-time.Hour)
	writeSession(t, d, idA, newGen(idA).lines(3), base)
	writeSession(t, d, idB, newGen(idB).lines(2), base.Add(time.Minute))
	open, err := os.OpenFile(filepath.Join(d, idA+".jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	gA := newGen(idA)
	gA.n = 3
	touches := 0
	changes := []struct {
		what string
		do   func() error
	}{
		{"append to a file held open", func() error { _, err := open.WriteString(gA.lines(1)); return err }},
		{"create", func() error {
			return os.WriteFile(filepath.Join(d, idC+".jsonl"), []byte(newGen(idC).lines(1)), 0o600)
		}},
		{"touch", func() error {
			touches++
			at := base.Add(time.Duration(touches) * time.Hour)
			return os.Chtimes(filepath.Join(d, idB+".jsonl"), at, at)
		}},
		{"rename into place", func() error {
			tmp := filepath.Join(t.TempDir(), "x")
			if err := os.WriteFile(tmp, []byte(newGen(idB).lines(5)), 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, filepath.Join(d, idB+".jsonl"))
		}},
		{"truncate", func() error { return os.Truncate(filepath.Join(d, idB+".jsonl"), 0) }},
		{"delete", func() error { return os.Remove(filepath.Join(d, idC+".jsonl")) }},
	}
	for round := range 5 {
		for _, c := range changes {
			before := listIDs(t, s)
			reads := s.Stats().DirReads
			if again := listIDs(t, s); again != before || s.Stats().DirReads != reads {
				t.Fatalf("an unchanged folder: read again (%d reads), or %s then %s", s.Stats().DirReads-reads, before, again)
			}
			if err := c.do(); err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			got, want := listIDs(t, s), fresh(t, projects)
			if got != want {
				t.Fatalf("round %d, after %s: List %s, want %s", round, c.what, got, want)
			}
			if got == before {
				t.Fatalf("round %d: %s changed nothing List reports (the test is wrong)", round, c.what)
			}
		}
	}
}

// TestListResultShared: List's result is shared with later calls (see
// List); appending to it copies it, so the next List is unchanged.
func TestListResultShared(t *testing.T) {
	s, d := newStore(t)
	writeSession(t, d, idA, newGen(idA).lines(1), time.Now())
	first, err := s.List(context.Background(), workDir)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(first)
	more := append(first, runtimes.Summary{SessionID: "appended"})
	more[0].SessionID = "changed"
	if got := listIDs(t, s); got != want {
		t.Fatalf("List %s, want %s", got, want)
	}
}

// TestListWatchReleased: the folder's watch is released once List leaves
// it unused (the idle timer fires) and when the Store closes: no inotify
// instance, descriptor or goroutine (goleak) is left.
func TestListWatchReleased(t *testing.T) {
	if fswatch.Instances() != 0 {
		t.Fatal("an inotify instance before the test")
	}
	fds := fswatchtest.OpenFDs(t)
	var fire []func()
	s := NewWith(t.TempDir(), history.Options{AfterFunc: func(d time.Duration, f func()) *time.Timer {
		fire = append(fire, f)
		return time.AfterFunc(time.Hour, func() {})
	}})
	t.Cleanup(func() { s.Close() })
	d := s.Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	writeSession(t, d, idA, newGen(idA).lines(1), time.Now())
	want := listIDs(t, s)
	if n := fswatch.Instances(); n != 1 {
		t.Fatalf("%d inotify instances while the folder is watched, want 1", n)
	}
	if len(fire) != 1 {
		t.Fatalf("%d release timers, want 1", len(fire))
	}
	fire[0]() // unused for s.idle
	fswatchtest.Released(t, fds, "after the idle release")
	// Watched again by the next List, and released by Close.
	if got := listIDs(t, s); got != want {
		t.Fatalf("List %s, want %s", got, want)
	}
	if n := fswatch.Instances(); n != 1 {
		t.Fatalf("%d inotify instances, want 1", n)
	}
	s.Close()
	fswatchtest.Released(t, fds, "after Close")
	// Closed, it still lists, watching nothing.
	if got := listIDs(t, s); got != want || fswatch.Instances() != 0 {
		t.Fatalf("after Close: List %s (want %s), %d instances", got, want, fswatch.Instances())
	}
}

// TestListWatchRefused: when the system refuses the folder's watch, List
// reads the folder every time (and so still sees every write), says why
// in a debug log, and holds no inotify instance.
func TestListWatchRefused(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	projects := t.TempDir()
	refusing := fswatch.New(fswatch.Config{Refuse: func(string) error { return syscall.ENOSPC }})
	s := New(projects, zap.New(core)).WithWatcher(refusing)
	defer s.Close()
	d := s.Dir(workDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	p := writeSession(t, d, idA, newGen(idA).lines(1), time.Now())
	for i := range 3 {
		reads := s.Stats().DirReads
		appendFile(t, p, newGen(idA).lines(1))
		if got, want := listIDs(t, s), fresh(t, projects); got != want {
			t.Fatalf("List %s, want %s", got, want)
		}
		if s.Stats().DirReads != reads+1 {
			t.Fatalf("call %d: the folder was not read", i)
		}
	}
	if fswatch.Instances() != 0 {
		t.Fatal("an inotify instance left by refused watches")
	}
	msgs := logs.FilterMessageSnippet("stats each transcript").All()
	if len(msgs) != 1 { // once: it is not asked again at every call
		t.Fatalf("%d debug logs of the refusal, want 1: %v", len(msgs), logs.All())
	}
	if !slices.ContainsFunc(msgs[0].Context, func(f zapcore.Field) bool { return f.Key == "error" }) {
		t.Errorf("the log does not say why: %v", msgs[0].Context)
	}
}
