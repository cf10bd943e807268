package chats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
)

func nextMessage(t *testing.T, ch <-chan rpc.Message) rpc.Message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(waitTimeout):
		t.Fatal("no message emitted")
		return rpc.Message{}
	}
}

// Tail emits records appended after it started; a record rewritten with
// changed content is emitted again under its id, one rewritten unchanged
// is not; non-message lines are skipped.
func TestTailUpserts(t *testing.T) {
	f := newFixture(t)
	w := fswatch.New(fswatch.Config{})
	f.s.WithWatcher(w)
	ch := make(chan rpc.Message, 16)
	c, err := f.s.Tail(context.Background(), f.ws, sessionA, func(m rpc.Message) { ch <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const (
		user = `{"id":"dd000001-0000-4000-8000-000000000001","timestamp":"2026-11-22T22:35:00.000Z","type":"user","content":[{"text":"next"}]}` + "\n"
		ans1 = `{"id":"dd000001-0000-4000-8000-000000000002","timestamp":"2026-11-22T22:35:01.000Z","type":"gemini","content":"partial"}` + "\n"
		ans2 = `{"id":"dd000001-0000-4000-8000-000000000002","timestamp":"2026-11-22T22:35:01.000Z","type":"gemini","content":"partial and more"}` + "\n"
		set  = `{"$set":{"lastUpdated":"2026-11-22T22:35:02.000Z"}}` + "\n"
	)
	appendFile(t, f.main, user)
	if m := nextMessage(t, ch); m.Message.Content[0].Text != "next" {
		t.Fatalf("first = %+v", m)
	}
	appendFile(t, f.main, ans1+set+ans1) // the same record again, unchanged
	if m := nextMessage(t, ch); m.Message.Content[0].Text != "partial" {
		t.Fatalf("second = %+v", m)
	}
	appendFile(t, f.main, ans2)
	if m := nextMessage(t, ch); m.ID != "dd000001-0000-4000-8000-000000000002" || m.Message.Content[0].Text != "partial and more" {
		t.Fatalf("upsert = %+v", m)
	}
	// A $set of the whole list (Gemini writes one after a cancel): only
	// what is new or changed in it is emitted.
	const newer = `{"id":"dd000001-0000-4000-8000-000000000003","timestamp":"2026-11-22T22:36:00.000Z","type":"user","content":[{"text":"after the set"}]}`
	appendFile(t, f.main, `{"$set":{"messages":[`+strings.TrimSpace(user)+`,`+strings.TrimSpace(ans2)+`,`+newer+`]}}`+"\n")
	if m := nextMessage(t, ch); m.Message.Content[0].Text != "after the set" {
		t.Fatalf("after $set = %+v", m)
	}
	select {
	case m := <-ch:
		t.Fatalf("unexpected %+v", m)
	default:
	}
}

// Watch reports the sessions of the workspace whose chat files are
// written, in a chats directory that did not exist when it started, and
// not the phantom session every start of the CLI writes.
func TestWatchAwaitsChatsDir(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), ".gemini"), filepath.Join(t.TempDir(), "myproj")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	s := New(home, nil).WithWatcher(fswatch.New(fswatch.Config{}))
	ch := make(chan string, 16)
	c, err := s.Watch(ws, func(id string) { ch <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	install(t, home, "myproj", "phantom.jsonl", "2026-11-22T22-50", phantomP, ws)
	install(t, home, "myproj", "session.jsonl", "2026-11-22T22-31", sessionA, ws)
	select {
	case id := <-ch:
		if id != sessionA {
			t.Fatalf("changed(%s), want %s", id, sessionA)
		}
	case <-time.After(waitTimeout):
		t.Fatal("no change reported")
	}
	c.Close()
	for len(ch) > 0 {
		if id := <-ch; id != sessionA {
			t.Fatalf("changed(%s)", id)
		}
	}
}

func waitChanged(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	select {
	case id := <-ch:
		if id != want {
			t.Fatalf("changed(%s), want %s", id, want)
		}
	case <-time.After(waitTimeout):
		t.Fatal("no change reported")
	}
}

// Watch covers a chats directory that already holds a file of the
// workspace, whatever its slug, and the slug projects.json names.
func TestWatchSlugs(t *testing.T) {
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.home, "projects.json"), []byte(`{"projects":{"`+f.ws+`":"named"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f.s.WithWatcher(fswatch.New(fswatch.Config{}))
	ch := make(chan string, 16)
	c, err := f.s.Watch(f.ws, func(id string) { ch <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	appendFile(t, f.main, `{"$set":{"lastUpdated":"2026-11-22T22:40:00.000Z"}}`+"\n")
	waitChanged(t, ch, sessionA)
	c.Close()
	for len(ch) > 0 {
		<-ch
	}
	c, err = f.s.Watch(f.ws, func(id string) { ch <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	install(t, f.home, "named", "reset.jsonl", "2026-11-22T23-30", sessionR, f.ws)
	waitChanged(t, ch, sessionR)
}

// A resume rewrites the conversation as a $set of the whole list, every
// message under a new id and an answer as parts: Tail emits none of it
// again, only what comes after (the messages of reset.jsonl are known).
func TestTailSkipsRewrittenConversation(t *testing.T) {
	f := newFixture(t)
	f.s.WithWatcher(fswatch.New(fswatch.Config{}))
	ch := make(chan rpc.Message, 16)
	c, err := f.s.Tail(context.Background(), f.ws, sessionR, func(m rpc.Message) { ch <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := filepath.Join(f.home, "tmp", "proj", "chats", "session-2026-11-22T23-00-"+id8(sessionR)+".jsonl")
	appendFile(t, path, `{"$set":{"messages":[`+
		`{"id":"ee000000-0000-4000-8000-000000000001","timestamp":"2026-11-22T23:10:00.000Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI."}]},`+
		`{"id":"ee000000-0000-4000-8000-000000000002","timestamp":"2026-11-22T23:10:00.001Z","type":"user","content":[{"text":"kept prompt"}]},`+
		`{"id":"ee000000-0000-4000-8000-000000000003","timestamp":"2026-11-22T23:10:00.002Z","type":"gemini","content":[{"text":"kept answer, "},{"text":"rewritten"}]}]}}`+"\n"+
		`{"id":"ee000000-0000-4000-8000-000000000004","timestamp":"2026-11-22T23:10:01.000Z","type":"user","content":[{"text":"kept prompt"}]}`+"\n")
	// The same words asked again after the resume are a new message.
	if m := nextMessage(t, ch); m.ID != "ee000000-0000-4000-8000-000000000004" {
		t.Fatalf("first emitted = %+v, want the prompt after the resume", m)
	}
	select {
	case m := <-ch:
		t.Fatalf("unexpected %+v", m)
	default:
	}
}
