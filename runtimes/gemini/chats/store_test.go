package chats

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// The golden holds every line kind of session.jsonl turned into messages:
// the session context and an empty answer are not messages, a rejected
// call's function response is a tool_result, a function response whose
// call a gemini record holds is left out, an upserted record is its last
// version in its first position, thoughts become thinking blocks.
func TestMessagesGolden(t *testing.T) {
	f := newFixture(t)
	msgs, total, err := f.s.Messages(context.Background(), f.ws, sessionA, 0, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(msgs) {
		t.Fatalf("total %d, page %d", total, len(msgs))
	}
	got, _ := json.MarshalIndent(msgs, "", "  ")
	golden := filepath.Join("testdata", "session.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(got)+"\n" {
		t.Fatalf("messages differ from %s:\n%s", golden, got)
	}
}

func TestListSkipsPhantomsAndOtherWorkspaces(t *testing.T) {
	f := newFixture(t)
	// session.jsonl written last: newest.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(f.main, later, later); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.List(context.Background(), f.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("List = %+v, want sessions A and R only", got)
	}
	if got[0].SessionID != sessionA || got[0].Summary != "RUNTOOL[touch deny1.txt]" || got[0].MessageCount != 6 {
		t.Errorf("first = %+v", got[0])
	}
	if got[1].SessionID != sessionR || got[1].Summary != "kept prompt" || got[1].MessageCount != 2 {
		t.Errorf("second = %+v", got[1])
	}
	if f.s.Has(context.Background(), f.ws, phantomP) {
		t.Error("Has(phantom) = true")
	}
	if !f.s.Has(context.Background(), f.ws, sessionA) || f.s.Has(context.Background(), "/elsewhere-not", sessionA) {
		t.Error("Has does not match by workspace")
	}
}

// A $set of messages replaces the whole list; a record rewritten after it
// is upserted.
func TestSetMessagesReplacesList(t *testing.T) {
	f := newFixture(t)
	msgs, total, err := f.s.Messages(context.Background(), f.ws, sessionR, 0, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || msgs[0].Message.Content[0].Text != "kept prompt" || msgs[1].Message.Content[0].Text != "kept answer, rewritten" {
		t.Fatalf("messages = %+v", msgs)
	}
}

func TestMessagesPaging(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	all, _, err := f.s.Messages(ctx, f.ws, sessionA, 0, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	page, total, err := f.s.Messages(ctx, f.ws, sessionA, 1, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(all) || len(page) != 2 || page[0].ID != all[len(all)-2].ID || page[1].ID != all[len(all)-3].ID {
		t.Fatalf("desc page = %v", ids(page))
	}
	if page, _, _ := f.s.Messages(ctx, f.ws, sessionA, 1<<62, 1<<62, false); len(page) != 0 {
		t.Fatalf("page past the end = %v", ids(page))
	}
	if _, _, err := f.s.Messages(ctx, f.ws, phantomP, 0, 10, false); !errors.Is(err, runtimes.ErrNoSession) {
		t.Fatalf("phantom: %v", err)
	}
	if _, _, err := f.s.Messages(ctx, f.ws, "../x", 0, 10, false); !errors.Is(err, runtimes.ErrBadSessionID) {
		t.Fatalf("bad id: %v", err)
	}
}

// A file that grew is read from where the last read stopped; a replaced
// one is read whole.
func TestGrowthReadIncrementally(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.s.List(ctx, f.ws); err != nil { // reads every file once
		t.Fatal(err)
	}
	full, bytes0 := f.s.Stats().FullScans, f.s.Stats().ScannedBytes
	line := `{"id":"cc000001-0000-4000-8000-000000000001","timestamp":"2026-11-22T22:33:00.000Z","type":"user","content":[{"text":"another"}]}` + "\n"
	appendFile(t, f.main, line)
	msgs, total, err := f.s.Messages(ctx, f.ws, sessionA, 0, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if total != 7 || msgs[0].Message.Content[0].Text != "another" {
		t.Fatalf("after append: total %d, newest %+v", total, msgs)
	}
	if d := f.s.Stats().FullScans - full; d != 0 {
		t.Errorf("append caused %d full scans", d)
	}
	if d := f.s.Stats().ScannedBytes - bytes0; d != int64(len(line)) {
		t.Errorf("append read %d bytes, want %d", d, len(line))
	}
	// Unchanged: nothing read.
	bytes1 := f.s.Stats().ScannedBytes
	if _, err := f.s.List(ctx, f.ws); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.Messages(ctx, f.ws, sessionA, 0, 1, true); err != nil {
		t.Fatal(err)
	}
	if d := f.s.Stats().ScannedBytes - bytes1; d != 0 {
		t.Errorf("unchanged files: read %d bytes", d)
	}
}

type dirBin struct{ dir string }

func (b dirBin) Put(p string) error { return os.Rename(p, filepath.Join(b.dir, filepath.Base(p))) }

// Trash takes every file of the session, the one a load left included.
func TestTrashAllFiles(t *testing.T) {
	f := newFixture(t)
	bin := t.TempDir()
	if err := f.s.Trash(context.Background(), f.ws, sessionA, dirBin{bin}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f.main, f.load} {
		if _, err := os.Stat(filepath.Join(bin, filepath.Base(p))); err != nil {
			t.Errorf("%s not in the bin: %v", filepath.Base(p), err)
		}
	}
	if f.s.Has(context.Background(), f.ws, sessionA) {
		t.Error("Has after Trash")
	}
	if err := f.s.Trash(context.Background(), f.ws, sessionA, dirBin{bin}); !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("second Trash: %v", err)
	}
}

func ids(ms []rpc.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// A session whose prompts went on in a second file is both files' records
// in order of the files' start times; a record id found in both is kept in
// its first position with its last version. The file a load left without
// a user message adds nothing.
func TestSessionMergesFiles(t *testing.T) {
	f := newFixture(t)
	second := filepath.Join(filepath.Dir(f.main), "session-2026-11-22T22-45-"+id8(sessionA)+".jsonl")
	body := `{"sessionId":"` + sessionA + `","projectHash":"` + ProjectHash(f.ws) + `","startTime":"2026-11-22T22:45:00.000Z","kind":"main"}
{"id":"aa000003-0000-4000-8000-000000000009","timestamp":"2026-11-22T22:32:00.300Z","type":"gemini","content":"Done, rewritten."}
{"id":"ee000001-0000-4000-8000-000000000001","timestamp":"2026-11-22T22:45:01.000Z","type":"user","content":[{"text":"later prompt"}]}
`
	if err := os.WriteFile(second, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	msgs, total, err := f.s.Messages(context.Background(), f.ws, sessionA, 0, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	if total != 7 || len(msgs) != 7 {
		t.Fatalf("total %d: %v", total, ids(msgs))
	}
	if m := msgs[5]; m.ID != "aa000003-0000-4000-8000-000000000009" || m.Message.Content[0].Text != "Done, rewritten." {
		t.Errorf("upserted across files: %+v", m)
	}
	if msgs[6].Message.Content[0].Text != "later prompt" {
		t.Errorf("last = %+v", msgs[6])
	}
}

// The workspace is matched by the hash of its path as given or resolved:
// a session recorded under the real path is found through a symlink.
func TestWorkspaceThroughSymlink(t *testing.T) {
	f := newFixture(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(f.ws, link); err != nil {
		t.Fatal(err)
	}
	if !f.s.Has(context.Background(), link, sessionA) {
		t.Fatal("not found through a symlink")
	}
}

// A chat file replaced by another (same name, new file) is replayed whole.
func TestReplacedFileReplayed(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, _, err := f.s.Messages(ctx, f.ws, sessionR, 0, 10, false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(filepath.Dir(f.main), "session-2026-11-22T23-00-"+id8(sessionR)+".jsonl")
	tmp := p + ".new"
	body := `{"sessionId":"` + sessionR + `","projectHash":"` + ProjectHash(f.ws) + `","startTime":"2026-11-22T23:00:00.000Z","kind":"main"}
{"id":"ff000001-0000-4000-8000-000000000001","timestamp":"2026-11-22T23:10:00.000Z","type":"user","content":[{"text":"replaced"}]}
`
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	msgs, total, err := f.s.Messages(ctx, f.ws, sessionR, 0, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || msgs[0].Message.Content[0].Text != "replaced" {
		t.Fatalf("after replace: %+v", msgs)
	}
}

// A file rewritten in place with its size and time kept is caught when a
// page is read (the records' checksums differ): an error, then a fresh
// replay.
func TestRewrittenInPlace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	p := filepath.Join(filepath.Dir(f.main), "session-2026-11-22T23-00-"+id8(sessionR)+".jsonl")
	if _, _, err := f.s.Messages(ctx, f.ws, sessionR, 0, 10, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "kept prompt", "KEPT PROMPT", 1))
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.Messages(ctx, f.ws, sessionR, 0, 10, false); err == nil {
		t.Fatal("stale read not detected")
	}
	msgs, _, err := f.s.Messages(ctx, f.ws, sessionR, 0, 10, false)
	if err != nil || msgs[0].Message.Content[0].Text != "KEPT PROMPT" {
		t.Fatalf("after the stale read: %v %+v", err, msgs)
	}
}

// A session/load appends to the old file a $set of the whole message list
// in which Gemini writes each answer as a list of parts, not a string (seen
// with the real CLI): the answers stay in the history.
func TestLoadRewritesAnswersAsParts(t *testing.T) {
	f := newFixture(t)
	id := "5b000000-0000-4000-8000-0000000000cc"
	p := install(t, f.home, "proj", "reset.jsonl", "2026-11-22T23-10", id, f.ws)
	if err := os.WriteFile(p, []byte(`{"sessionId":"`+id+`","projectHash":"`+ProjectHash(f.ws)+`","startTime":"2026-11-22T23:10:00.000Z","lastUpdated":"2026-11-22T23:10:00.000Z","kind":"main"}
{"id":"a1","timestamp":"2026-11-22T23:10:01.000Z","type":"user","content":[{"text":"hello"}]}
{"id":"a2","timestamp":"2026-11-22T23:10:02.000Z","type":"gemini","content":"echo: hello","model":"m"}
{"$set":{"sessionId":"`+id+`"}}
{"$set":{"messages":[{"id":"ctx","timestamp":"2026-11-22T23:11:00.000Z","type":"user","content":[{"text":"<session_context>\nx"}]},{"id":"a1","timestamp":"2026-11-22T23:10:01.000Z","type":"user","content":[{"text":"hello"}]},{"id":"a2","timestamp":"2026-11-22T23:10:02.000Z","type":"gemini","content":[{"text":"echo: "},{"text":"thinking","thought":true},{"text":"hello"}],"model":"m"}]}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	msgs, total, err := f.s.Messages(context.Background(), f.ws, id, 0, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || msgs[1].ID != "a2" || msgs[1].Message.Content[0].Text != "echo: hello" {
		t.Fatalf("messages after a load's rewrite: %+v", msgs)
	}
}

// `gemini -p --resume` rewrites the conversation with a $set of messages in
// which an answer's content is a list of parts (thoughts among them), not
// a string (resumed.jsonl, as the CLI 0.61.0 wrote it, shortened): the
// answer is still a message, its text the parts' text without thoughts.
func TestResumedAnswerAsParts(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), ".gemini"), t.TempDir()
	const id = "5c000000-0000-4000-8000-0000000000cc"
	install(t, home, "proj", "resumed.jsonl", "2026-11-23T03-15", id, ws)
	msgs, total, err := New(home, nil).Messages(context.Background(), ws, id, 0, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range msgs {
		for _, b := range m.Message.Content {
			said = append(said, string(m.Type)+": "+string(b.Type)+" "+b.Text)
		}
	}
	want := []string{"user: text outside one", "assistant: text echo: outside one", "user: text outside two", "assistant: text echo: outside two"}
	if total != 4 || strings.Join(said, "|") != strings.Join(want, "|") {
		t.Fatalf("total %d, messages %q, want %q", total, said, want)
	}
}
