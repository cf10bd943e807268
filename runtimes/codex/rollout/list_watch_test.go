package rollout

import (
	"bytes"
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
	"github.com/cdevd/cdevd/runtimes/history"
)

// listOf lists ws and returns the thread ids with their message counts and
// times, newest first.
func listOf(t *testing.T, s *Store, ws string) string {
	t.Helper()
	got, err := s.List(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(got)
}

// freshList lists ws with a new Store, which reads everything: what any
// List must return. Its watches are its own, so that they cannot revive
// those of the Store under test (fswatch keeps one watch per path).
func freshList(t *testing.T, home, ws string) string {
	t.Helper()
	s := New(home, nil).WithWatcher(fswatch.New(fswatch.Config{}))
	defer s.Close()
	return listOf(t, s, ws)
}

// rolloutBytes is the captured rollout as thread id's in workspace ws.
func rolloutBytes(t *testing.T, id, ws string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "exec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(wsPlaceholder), []byte(ws))
	return bytes.ReplaceAll(b, []byte(threadA), []byte(id))
}

// renameInto writes b to a temporary file and renames it onto p: the file
// at p is a new one (another identity).
func renameInto(t *testing.T, p string, b []byte) error {
	tmp := filepath.Join(t.TempDir(), "r")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// TestListSkipsOtherWorkspaces: List indexes only the asked workspace's
// rollouts; of a big rollout of another workspace it reads the first line
// once, and neither scans it nor reads it again when it grows.
func TestListSkipsOtherWorkspaces(t *testing.T) {
	home, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	a := install(t, home, "exec.jsonl", "2026/11/22", threadA, ws)
	c := install(t, home, "exec.jsonl", "2026/11/23", threadC, ws)
	const bigSize = 4 << 20
	big := writeBig(t, home, other, threadB, bigSize)
	s := newStore(t, home)
	var mine int64
	for _, p := range []string{a, c} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		mine += fi.Size()
	}
	if got, want := listOf(t, s, ws), freshList(t, home, ws); got != want {
		t.Fatalf("List %s, want %s", got, want)
	}
	if n, b := s.Stats().FullScans, s.Stats().ScannedBytes; n != 2 || b != mine {
		t.Fatalf("List of ws: %d full scans of %d bytes, want 2 of %d (its own rollouts only)", n, b, mine)
	}
	heads := s.Stats().HeadBytes
	if heads == 0 || heads > 64<<10 {
		t.Fatalf("%d bytes of heads read, want the other rollout's first line", heads)
	}
	// Grown (a resume), the other workspace's rollout is still not read.
	appendFile(t, big, `{"timestamp":"2026-11-23T00:00:09.000Z","type":"event_msg","payload":{"type":"token_count","info":{}}}`+"\n")
	appendFile(t, a, `{"timestamp":"2026-11-23T00:00:09.000Z","type":"event_msg","payload":{"type":"token_count","info":{}}}`+"\n")
	if got, want := listOf(t, s, ws), freshList(t, home, ws); got != want {
		t.Fatalf("List %s, want %s", got, want)
	}
	if b := s.Stats().ScannedBytes; b >= bigSize || s.Stats().HeadBytes != heads {
		t.Fatalf("after an append: %d bytes scanned, %d of heads (was %d): the other workspace's rollout was read", b, s.Stats().HeadBytes, heads)
	}
	// Its own history indexes it.
	if got := listOf(t, s, other); !bytes.Contains([]byte(got), []byte(threadB)) {
		t.Fatalf("List(other) = %s, want %s", got, threadB)
	}
}

// TestListReplacedRolloutMoves: a rollout replaced under the same name by
// one of another workspace moves to that workspace's history, and back;
// so does one rewritten in place shorter than it was.
func TestListReplacedRolloutMoves(t *testing.T) {
	for _, c := range []struct {
		name    string
		headMin int64
	}{{"indexed", 0}, {"heads read", -1}} {
		t.Run(c.name, func(t *testing.T) { testReplacedRolloutMoves(t, c.headMin) })
	}
}

// testReplacedRolloutMoves is TestListReplacedRolloutMoves with rollouts
// above headMin read by their first line (0: the default; -1: every one).
func testReplacedRolloutMoves(t *testing.T, headMin int64) {
	home, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	p := install(t, home, "exec.jsonl", "2026/11/23", threadB, ws)
	install(t, home, "exec.jsonl", "2026/11/23", threadC, other)
	s := tuned(home, history.Options{}, 0, headMin)
	defer s.Close()
	check := func(i int, to string) {
		t.Helper()
		for _, w := range []string{ws, other} {
			got, want := listOf(t, s, w), freshList(t, home, w)
			if got != want {
				t.Fatalf("move %d: List(%s) = %s, want %s", i, w, got, want)
			}
			if has := bytes.Contains([]byte(got), []byte(threadB)); has != (w == to) {
				t.Fatalf("move %d: List(%s) = %s: the rollout is listed in the wrong workspace", i, w, got)
			}
		}
	}
	for i, to := range []string{other, ws, other} {
		for _, w := range []string{ws, other} {
			listOf(t, s, w) // both workspaces know the rollout's workspace
		}
		if err := renameInto(t, p, rolloutBytes(t, threadB, to)); err != nil {
			t.Fatal(err)
		}
		check(i, to)
	}
	// Rewritten in place (the same file) with another workspace, shorter:
	// the session_meta alone.
	for i, to := range []string{ws, other} {
		for _, w := range []string{ws, other} {
			listOf(t, s, w)
		}
		b := rolloutBytes(t, threadB, to)
		if err := os.WriteFile(p, b[:bytes.IndexByte(b, '\n')+1], 0o600); err != nil {
			t.Fatal(err)
		}
		check(10+i, to)
	}
}

const threadD = "01a205e0-0000-7000-8000-00000000000d"

// TestListSeesEveryWrite: a List right after a change anywhere in the
// sessions tree (no wait of any kind) reports it: a rollout created in a
// new day directory, appended to (an old one, held open: a resume),
// renamed into place, touched, truncated, deleted, a year directory
// removed, a day directory replaced. A List with no change between reads nothing: the watches are
// what let it, so the changes being seen proves they miss none.
func TestListSeesEveryWrite(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	base := time.Now().Add(-time.Hour)
	a := install(t, home, "exec.jsonl", "2025/12/31", threadA, ws)
	b := install(t, home, "exec.jsonl", "2026/11/23", threadB, ws)
	for i, p := range []string{a, b} {
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	open, err := os.OpenFile(a, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	s := newStore(t, home)
	newDay := filepath.Join(home, "sessions", "2027", "01", "02")
	c := filepath.Join(newDay, filepath.Base(b[:len(b)-len(threadB+".jsonl")])+threadC+".jsonl")
	d := filepath.Join(filepath.Dir(b), filepath.Base(c))
	d = d[:len(d)-len(threadC+".jsonl")] + threadD + ".jsonl"
	touches, moves := 0, 0
	line := `{"timestamp":"2026-11-23T00:00:09.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"more"}]}}}` + "\n"
	changes := []struct {
		what string
		do   func() error
	}{
		{"append to an old rollout held open", func() error { _, err := open.WriteString(line); return err }},
		{"create in a new day directory", func() error {
			if err := os.MkdirAll(newDay, 0o700); err != nil {
				return err
			}
			return os.WriteFile(c, rolloutBytes(t, threadC, ws), 0o600)
		}},
		{"touch", func() error {
			touches++
			at := base.Add(time.Duration(touches) * time.Hour)
			return os.Chtimes(b, at, at)
		}},
		{"rename into place", func() error { return renameInto(t, b, append(rolloutBytes(t, threadB, ws), line...)) }},
		{"append to the new one", func() error { appendFile(t, c, line); return nil }},
		{"truncate", func() error { return os.Truncate(b, 0) }},
		{"create", func() error { return os.WriteFile(d, rolloutBytes(t, threadD, ws), 0o600) }},
		{"delete", func() error { return os.Remove(d) }},
		{"remove a year directory", func() error { return os.RemoveAll(filepath.Join(home, "sessions", "2027")) }},
		{"restore", func() error { return renameInto(t, b, rolloutBytes(t, threadB, ws)) }},
		{"replace the day directory", func() error {
			moves++
			day := filepath.Dir(b)
			if err := os.Rename(day, filepath.Join(home, fmt.Sprint("moved", moves))); err != nil {
				return err
			}
			if err := os.Mkdir(day, 0o700); err != nil {
				return err
			}
			return os.WriteFile(b, append(rolloutBytes(t, threadB, ws), line...), 0o600)
		}},
	}
	// A List that found directories not watched yet reads the tree once
	// more at the next call (they may have changed before their watch).
	settle := func() { listOf(t, s, ws) }
	settle()
	for round := range 3 {
		for _, ch := range changes {
			before := listOf(t, s, ws)
			walks := s.Stats().Walks
			if again := listOf(t, s, ws); again != before || s.Stats().Walks != walks {
				t.Fatalf("an unchanged tree: read again (%d walks), or %s then %s", s.Stats().Walks-walks, before, again)
			}
			if err := ch.do(); err != nil {
				t.Fatalf("%s: %v", ch.what, err)
			}
			got, want := listOf(t, s, ws), freshList(t, home, ws)
			if got != want {
				t.Fatalf("round %d, after %s: List %s, want %s", round, ch.what, got, want)
			}
			if got == before {
				t.Fatalf("round %d: %s changed nothing List reports (the test is wrong)", round, ch.what)
			}
			settle()
		}
	}
}

// TestListWatchReleased: the tree's watches are released once List leaves
// them unused (the idle timer fires) and when the Store closes: no inotify
// instance, descriptor or goroutine (goleak) is left.
func TestListWatchReleased(t *testing.T) {
	if fswatch.Instances() != 0 {
		t.Fatal("an inotify instance before the test")
	}
	fds := fswatchtest.OpenFDs(t)
	home, ws := t.TempDir(), t.TempDir()
	install(t, home, "exec.jsonl", "2026/11/22", threadA, ws)
	install(t, home, "exec.jsonl", "2026/11/23", threadB, ws)
	var fire []func()
	s := NewWith(home, history.Options{AfterFunc: func(_ time.Duration, f func()) *time.Timer {
		fire = append(fire, f)
		return time.AfterFunc(time.Hour, func() {})
	}})
	defer s.Close()
	want := listOf(t, s, ws)
	if n := fswatch.Instances(); n != 1 {
		t.Fatalf("%d inotify instances while the tree is watched, want 1", n)
	}
	if n := s.Stats().Watched; n != 5 { // sessions, 2026, 11, 22, 23
		t.Fatalf("%d directories watched, want 5", n)
	}
	if len(fire) != 1 {
		t.Fatalf("%d release timers, want 1", len(fire))
	}
	fire[0]() // unused for s.idle
	fswatchtest.Released(t, fds, "after the idle release")
	// Watched again by the next List, and released by Close.
	if got := listOf(t, s, ws); got != want {
		t.Fatalf("List %s, want %s", got, want)
	}
	if n := fswatch.Instances(); n != 1 {
		t.Fatalf("%d inotify instances, want 1", n)
	}
	s.Close()
	fswatchtest.Released(t, fds, "after Close")
	// Closed, it still lists, watching nothing.
	if got := listOf(t, s, ws); got != want || fswatch.Instances() != 0 {
		t.Fatalf("after Close: List %s (want %s), %d instances", got, want, fswatch.Instances())
	}
}

// TestListWatchRefused: when the system refuses a watch, or the tree has
// more directories than List watches, List reads the tree every time (and
// so still sees every write), says why in a debug log, and holds no
// inotify instance.
func TestListWatchRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		refuse func(string) error
		max    int
	}{
		{"refused", func(string) error { return syscall.ENOSPC }, 0},
		{"refused below the root", func(d string) error {
			if filepath.Base(d) == "23" {
				return syscall.ENOSPC
			}
			return nil
		}, 0},
		{"too many directories", nil, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			home, ws := t.TempDir(), t.TempDir()
			w := fswatch.New(fswatch.Config{Refuse: c.refuse})
			s := tuned(home, history.Options{Log: zap.New(core)}, c.max, 0).WithWatcher(w)
			defer s.Close()
			p := install(t, home, "exec.jsonl", "2026/11/23", threadA, ws)
			for i := range 3 {
				walks := s.Stats().Walks
				appendFile(t, p, `{"timestamp":"2026-11-23T00:00:09.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"more"}]}}}`+"\n")
				if got, want := listOf(t, s, ws), freshList(t, home, ws); got != want {
					t.Fatalf("List %s, want %s", got, want)
				}
				if s.Stats().Walks != walks+1 {
					t.Fatalf("call %d: the tree was not read", i)
				}
				if fswatch.Instances() != 0 {
					t.Fatalf("call %d: an inotify instance left by refused watches", i)
				}
			}
			msgs := logs.FilterMessageSnippet("stats each rollout").All()
			if len(msgs) != 1 { // once: it is not asked again at every call
				t.Fatalf("%d debug logs of the refusal, want 1: %v", len(msgs), logs.All())
			}
			if !slices.ContainsFunc(msgs[0].Context, func(f zapcore.Field) bool { return f.Key == "error" }) {
				t.Errorf("the log does not say why: %v", msgs[0].Context)
			}
		})
	}
}
