package chats

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// chatBody is a chat file of session id of workspace ws with n turns.
func chatBody(id, ws string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"sessionId":%q,"projectHash":%q,"startTime":"2026-11-23T00:00:00.000Z","kind":"main"}`+"\n", id, ProjectHash(ws))
	for i := range n {
		b.WriteString(turn(id, i))
	}
	return b.String()
}

// turn is the i-th prompt and answer of session id.
func turn(id string, i int) string {
	return fmt.Sprintf(`{"id":"u%d","timestamp":"2026-11-23T00:00:01.000Z","type":"user","content":[{"text":"prompt %s %d"}]}`+"\n"+
		`{"id":"a%d","timestamp":"2026-11-23T00:00:02.000Z","type":"gemini","content":"answer %d"}`+"\n", i, id, i, i, i)
}

// chatPath is where Gemini keeps session id's file under dir.
func chatFile(dir, id string) string {
	return filepath.Join(dir, "session-2026-11-23T00-00-"+id8(id)+".jsonl")
}

func writeChat(t *testing.T, dir, id, ws string, n int, mtime time.Time) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := chatFile(dir, id)
	if err := os.WriteFile(p, []byte(chatBody(id, ws, n)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return p
}

// listOf lists ws and returns what it says, newest first.
func listOf(t *testing.T, s *Store, ws string) string {
	t.Helper()
	got, err := s.List(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(got)
}

// freshList lists ws with a new Store, which reads everything: what any
// List must return.
func freshList(t *testing.T, home, ws string) string {
	t.Helper()
	s := New(home, nil)
	defer s.Close()
	return listOf(t, s, ws)
}

func sid(kind byte, n int) string { return fmt.Sprintf("%c%07d-0000-4000-8000-000000000000", kind, n) }

// TestListSeesEveryWrite: a List right after a change (no wait of any
// kind) reports it: a new project folder with a chats directory and a
// file, one made a step at a time, an append to a file held open, a file
// renamed into place, touched, truncated, deleted, a project folder
// removed. A List with no change between reads nothing: the watches are
// what lets it, so the changes being seen proves they miss none.
func TestListSeesEveryWrite(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), ".gemini"), t.TempDir()
	s := New(home, nil)
	defer s.Close()
	tmp := filepath.Join(home, "tmp")
	mine := filepath.Join(tmp, filepath.Base(ws), "chats")
	base := time.Now().Add(-time.Hour)
	idA, idB := sid('a', 0), sid('b', 0)
	pA := writeChat(t, mine, idA, ws, 3, base)
	pB := writeChat(t, mine, idB, ws, 2, base.Add(time.Minute))
	// Another project's folder, which List must not mix in.
	writeChat(t, filepath.Join(tmp, "other", "chats"), sid('o', 0), "/elsewhere", 2, base)
	open, err := os.OpenFile(pA, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	turns, touches, round := 3, 0, 0
	changes := []struct {
		what string
		do   func() error
	}{
		{"append to a file held open", func() error {
			_, err := open.WriteString(turn(idA, turns))
			turns++
			return err
		}},
		{"create a project folder with a chats directory and a file", func() error {
			// Gemini makes a folder for a workspace moved or renamed; the
			// file still says ws's projectHash.
			writeChat(t, filepath.Join(tmp, fmt.Sprintf("new%d", round), "chats"), sid('n', round), ws, 1, base)
			return nil
		}},
		{"make a project folder, then its chats directory, then a file", func() error {
			slug := filepath.Join(tmp, fmt.Sprintf("step%d", round))
			if err := os.Mkdir(slug, 0o700); err != nil {
				return err
			}
			listOf(t, s, ws)
			if err := os.Mkdir(filepath.Join(slug, "chats"), 0o700); err != nil {
				return err
			}
			listOf(t, s, ws)
			writeChat(t, filepath.Join(slug, "chats"), sid('s', round), ws, 1, base)
			return nil
		}},
		{"create", func() error {
			writeChat(t, mine, sid('c', round), ws, 1, base.Add(2*time.Minute))
			return nil
		}},
		{"rename into place", func() error {
			p := filepath.Join(t.TempDir(), "x")
			if err := os.WriteFile(p, []byte(chatBody(idB, ws, 5+round)), 0o600); err != nil {
				return err
			}
			return os.Rename(p, pB)
		}},
		{"touch", func() error {
			touches++
			at := base.Add(time.Duration(touches) * time.Hour)
			return os.Chtimes(pB, at, at)
		}},
		{"truncate", func() error { return os.Truncate(pB, 0) }},
		{"delete", func() error { return os.Remove(chatFile(mine, sid('c', round))) }},
		{"remove a project folder", func() error { return os.RemoveAll(filepath.Join(tmp, fmt.Sprintf("new%d", round))) }},
	}
	for round = range 3 {
		for _, c := range changes {
			before := listOf(t, s, ws)
			reads := s.Stats().Walks
			if again := listOf(t, s, ws); again != before || s.Stats().Walks != reads {
				t.Fatalf("unchanged folders: read again (%d reads), or %s then %s", s.Stats().Walks-reads, before, again)
			}
			if err := c.do(); err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			got, want := listOf(t, s, ws), freshList(t, home, ws)
			if got != want {
				t.Fatalf("round %d, after %s: List %s, want %s", round, c.what, got, want)
			}
			if got == before {
				t.Fatalf("round %d: %s changed nothing List reports (the test is wrong)", round, c.what)
			}
		}
	}
}

// TestListWatchReleased: the watches are released once List leaves them
// unused (the idle timer fires) and when the Store closes: no inotify
// instance, descriptor or goroutine (goleak) is left.
func TestListWatchReleased(t *testing.T) {
	if fswatch.Instances() != 0 {
		t.Fatal("an inotify instance before the test")
	}
	fds := fswatchtest.OpenFDs(t)
	home, ws := filepath.Join(t.TempDir(), ".gemini"), t.TempDir()
	writeChat(t, filepath.Join(home, "tmp", filepath.Base(ws), "chats"), sid('a', 0), ws, 1, time.Now())
	writeChat(t, filepath.Join(home, "tmp", "other", "chats"), sid('o', 0), "/elsewhere", 1, time.Now())
	var fire []func()
	s := NewWith(home, history.Options{AfterFunc: func(d time.Duration, f func()) *time.Timer {
		fire = append(fire, f)
		return time.AfterFunc(time.Hour, func() {})
	}})
	want := listOf(t, s, ws)
	if n := fswatch.Instances(); n != 1 {
		t.Fatalf("%d inotify instances while the folders are watched, want 1", n)
	}
	if len(fire) != 1 {
		t.Fatalf("%d release timers, want 1", len(fire))
	}
	reads := s.Stats().Walks
	listOf(t, s, ws)
	if s.Stats().Walks != reads {
		t.Fatal("unchanged folders read again: not watched")
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

// TestListWatchRefused: when the system refuses a watch, or there are more
// project folders than List watches, List reads the folders every time
// (and so still sees every write), says why in a debug log once, and
// holds no inotify instance.
func TestListWatchRefused(t *testing.T) {
	for _, how := range []string{"refused", "too many"} {
		t.Run(how, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			home, ws := filepath.Join(t.TempDir(), ".gemini"), t.TempDir()
			maxWatched := 0
			if how == "too many" {
				maxWatched = 2
			}
			s := tuned(home, history.Options{Log: zap.New(core)}, maxWatched)
			if how == "refused" {
				s.WithWatcher(fswatch.New(fswatch.Config{Refuse: func(string) error { return syscall.ENOSPC }}))
			}
			defer s.Close()
			p := writeChat(t, filepath.Join(home, "tmp", filepath.Base(ws), "chats"), sid('a', 0), ws, 1, time.Now())
			writeChat(t, filepath.Join(home, "tmp", "other", "chats"), sid('o', 0), "/elsewhere", 1, time.Now())
			for i := range 3 {
				reads := s.Stats().Walks
				appendFile(t, p, turn(sid('a', 0), i+1))
				if got, want := listOf(t, s, ws), freshList(t, home, ws); got != want {
					t.Fatalf("List %s, want %s", got, want)
				}
				if s.Stats().Walks != reads+1 {
					t.Fatalf("call %d: the folders were not read", i)
				}
			}
			if fswatch.Instances() != 0 {
				t.Fatal("an inotify instance left by refused watches")
			}
			msgs := logs.FilterMessageSnippet("every history call reads them").All()
			if len(msgs) != 1 { // once: it is not asked again at every call
				t.Fatalf("%d debug logs of the refusal, want 1: %v", len(msgs), logs.All())
			}
			if !slices.ContainsFunc(msgs[0].Context, func(f zapcore.Field) bool { return f.Key == "error" }) {
				t.Errorf("the log does not say why: %v", msgs[0].Context)
			}
		})
	}
}

// TestListConcurrent: Lists of two workspaces running while files are
// written and a project folder is made race with nothing (go test -race),
// and once the writes are over every List says what a fresh Store says.
func TestListConcurrent(t *testing.T) {
	home, ws, ws2 := filepath.Join(t.TempDir(), ".gemini"), t.TempDir(), t.TempDir()
	s := New(home, nil)
	defer s.Close()
	tmp := filepath.Join(home, "tmp")
	mine := filepath.Join(tmp, filepath.Base(ws), "chats")
	p := writeChat(t, mine, sid('a', 0), ws, 1, time.Now())
	done := make(chan struct{})
	errs := make(chan error, 4)
	for _, w := range []string{ws, ws, ws2, ws2} {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := s.List(context.Background(), w); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		appendFile(t, p, turn(sid('a', 0), i+1))
		writeChat(t, filepath.Join(tmp, fmt.Sprintf("p%d", i), "chats"), sid('p', i), []string{ws, ws2}[i%2], 1, time.Now())
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []string{ws, ws2} {
		if got, want := listOf(t, s, w), freshList(t, home, w); got != want {
			t.Fatalf("List %s, want %s", got, want)
		}
	}
}
