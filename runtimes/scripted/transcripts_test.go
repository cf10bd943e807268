package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

const workspace = "/home/me/my proj"

func message(id string, t rpc.MessageType, text string) rpc.Message {
	return rpc.Message{ID: id, SessionID: "s", Type: t, UUID: id, Timestamp: "2026-01-02T03:04:05Z",
		Message: rpc.MessageBody{Role: string(t), Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: text}}}}
}

// appendLines appends raw text to a session's transcript.
func appendLines(t *testing.T, ts runtimes.Transcripts, id, text string) {
	t.Helper()
	dir := ts.(*store).Dir(workspace)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, id+".jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// appendMessages appends complete message lines.
func appendMessages(t *testing.T, ts runtimes.Transcripts, id string, msgs ...rpc.Message) {
	t.Helper()
	var b strings.Builder
	for _, m := range msgs {
		j, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	appendLines(t, ts, id, b.String())
}

func setMtime(t *testing.T, ts runtimes.Transcripts, id string, mtime time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(ts.(*store).Dir(workspace), id+".jsonl"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func transcripts(t *testing.T) runtimes.Transcripts {
	a, _ := newAdapter(t, Config{})
	return a.Transcripts()
}

func TestDirAndPath(t *testing.T) {
	root := t.TempDir()
	ts := New(Config{StateDir: root}).Transcripts()
	if got, want := ts.(*store).Dir(workspace), filepath.Join(root, "-home-me-my-proj"); got != want {
		t.Errorf("Dir = %q, want %q", got, want)
	}
	appendMessages(t, ts, "s1", message("m", rpc.MessageUser, "hi"))
	if got, err := ts.(*store).Path(workspace, "s1"); err != nil || got != filepath.Join(root, "-home-me-my-proj", "s1.jsonl") {
		t.Errorf("Path = %q, %v", got, err)
	}
	if _, err := ts.(*store).Path(workspace, "missing"); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Path(missing) = %v, want ErrNoSession", err)
	}
	for _, id := range []string{"../s1", ""} {
		if _, err := ts.(*store).Path(workspace, id); !errors.Is(err, runtimes.ErrBadSessionID) {
			t.Errorf("Path(%q) = %v, want ErrBadSessionID", id, err)
		}
	}
	if New(Config{}).Transcripts() != nil {
		t.Error("Transcripts without a StateDir is not nil")
	}
}

func TestList(t *testing.T) {
	ts := transcripts(t)
	ctx := context.Background()
	if got, err := ts.List(ctx, workspace); err != nil || len(got) != 0 {
		t.Fatalf("List of an unknown workspace = %v, %v", got, err)
	}

	long := "first line\n" + strings.Repeat("é", 100)
	appendMessages(t, ts, "old", message("1", rpc.MessageAssistant, "greeting"), message("2", rpc.MessageUser, long),
		message("3", rpc.MessageUser, "second prompt"))
	appendLines(t, ts, "old", "not json\n"+`{"type":"user","message":`) // garbage, then a line being written
	appendMessages(t, ts, "new", message("1", rpc.MessageUser, "newest"))
	if err := os.WriteFile(filepath.Join(ts.(*store).Dir(workspace), "notes.txt"), []byte("not a session\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	oldTime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	setMtime(t, ts, "old", oldTime)
	setMtime(t, ts, "new", oldTime.Add(time.Hour))

	got, err := ts.List(ctx, workspace)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := []runtimes.Summary{
		{SessionID: "new", Summary: "newest", MessageCount: 1, LastUpdated: "2026-01-02T04:04:05.000Z"},
		{SessionID: "old", Summary: "first line " + strings.Repeat("é", 69), MessageCount: 3, LastUpdated: "2026-01-02T03:04:05.000Z"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List =\n%v\nwant\n%v", got, want)
	}
}

func TestMessagesPaging(t *testing.T) {
	ts := transcripts(t)
	ctx := context.Background()
	var msgs []rpc.Message
	for i := range 5 {
		msgs = append(msgs, message(fmt.Sprint("m", i), rpc.MessageUser, "text"))
	}
	appendMessages(t, ts, "s", msgs...)
	appendLines(t, ts, "s", `{"id":"partial"`)

	tests := []struct {
		offset, limit int
		desc          bool
		want          string
	}{
		{0, 0, false, "m0 m1 m2 m3 m4"},
		{1, 2, false, "m1 m2"},
		{0, 2, true, "m4 m3"},
		{4, 10, true, "m0"},
		{3, 0, true, "m1 m0"},
		{7, 2, false, ""},
	}
	for _, tt := range tests {
		page, total, err := ts.Messages(ctx, workspace, "s", tt.offset, tt.limit, tt.desc)
		if err != nil {
			t.Fatalf("Messages: %v", err)
		}
		var ids []string
		for _, m := range page {
			ids = append(ids, m.ID)
		}
		if got := strings.Join(ids, " "); got != tt.want || total != 5 {
			t.Errorf("Messages(offset %d, limit %d, desc %v) = %q of %d, want %q of 5", tt.offset, tt.limit, tt.desc, got, total, tt.want)
		}
	}
	if _, _, err := ts.Messages(ctx, workspace, "missing", 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("Messages of a missing session = %v, want ErrNoSession", err)
	}
}

// tailed collects what a Tail emits.
type tailed chan rpc.Message

func (c tailed) next(t *testing.T) rpc.Message {
	t.Helper()
	select {
	case m := <-c:
		return m
	case <-time.After(deadline):
		t.Fatal("timed out waiting for a tailed message")
		return rpc.Message{}
	}
}

func TestTail(t *testing.T) {
	ts := transcripts(t)
	appendMessages(t, ts, "s", message("old", rpc.MessageUser, "before the tail"))
	appendLines(t, ts, "s", `{"id":"half","type":"user",`) // being written when Tail starts

	got := make(tailed, 10)
	c, err := ts.Tail(context.Background(), workspace, "s", func(m rpc.Message) { got <- m })
	if err != nil {
		t.Fatalf("Tail: %v", err)
	}
	appendLines(t, ts, "s", `"message":{"role":"user","content":[]}}`+"\n")
	if m := got.next(t); m.ID != "half" {
		t.Errorf("first tailed message %q, want the one completed after Tail started", m.ID)
	}
	appendMessages(t, ts, "s", message("a", rpc.MessageUser, "x"), message("b", rpc.MessageAssistant, "y"))
	for _, want := range []string{"a", "b"} {
		if m := got.next(t); m.ID != want {
			t.Errorf("tailed %q, want %q", m.ID, want)
		}
	}
	// Close returns once the tail's goroutine ended (goleak checks it).
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestTailNewSessionFromLiveCLI(t *testing.T) {
	a, _ := newAdapter(t, Config{})
	dir := t.TempDir()
	ts := a.Transcripts()
	if err := os.MkdirAll(ts.(*store).Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	got := make(tailed, 10)
	c, err := ts.Tail(context.Background(), dir, "live", func(m rpc.Message) { got <- m })
	if err != nil {
		t.Fatalf("Tail: %v", err)
	}
	defer c.Close()

	s := start(t, a, runtimes.StartRequest{SessionID: "live", Dir: dir})
	s.send(t, "hello")
	s.turnEvents(t)
	for _, want := range []string{"user hello", "assistant echo: hello"} {
		m := got.next(t)
		if d := string(m.Type) + " " + m.Message.Content[0].Text; d != want {
			t.Errorf("tailed %q, want %q", d, want)
		}
	}
}
