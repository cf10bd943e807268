package claudegen

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/runtimes/claude/transcript"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The generated transcripts are ones cdevd's Claude reader takes as they
// are: every generated message is counted and paged, newest first, and the
// noise lines are not messages.
func TestClaudeReadsGeneratedTranscripts(t *testing.T) {
	const dir, id = "/home/dev/app", "00000001-0000-4000-8000-000000000001"
	s := transcript.New(t.TempDir(), nil)
	defer s.Close() // List watches the folders it read
	if err := os.MkdirAll(s.Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	g := New(id, dir)
	if err := g.Write(filepath.Join(s.Dir(dir), id+".jsonl"), 0, 15); err != nil {
		t.Fatal(err)
	}
	if g.Messages() != 15 {
		t.Fatalf("generator counted %d messages, want 15", g.Messages())
	}
	list, err := s.List(context.Background(), dir)
	if err != nil || len(list) != 1 || list[0].SessionID != id || list[0].MessageCount != 15 {
		t.Fatalf("List = %+v, %v; want %s with 15 messages", list, err, id)
	}
	page, total, err := s.Messages(context.Background(), dir, id, 0, 5, true)
	if err != nil || total != 15 || len(page) != 5 {
		t.Fatalf("Messages = %d of %d, %v; want 5 of 15", len(page), total, err)
	}
	if page[0].UUID != MessageUUID(14) || page[4].UUID != MessageUUID(10) {
		t.Errorf("newest page runs %s … %s, want %s … %s", page[0].UUID, page[4].UUID, MessageUUID(14), MessageUUID(10))
	}
}

// Write by size stops at the first line that reaches it.
func TestWriteBySize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	g := New("00000001-0000-4000-8000-000000000002", "/w")
	g.Pad = LoremPad
	if err := g.Write(p, 64<<10, 0); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 64<<10 || fi.Size() > 64<<10+4<<10 {
		t.Errorf("wrote %d bytes, want 64 KiB plus at most one message", fi.Size())
	}
}
