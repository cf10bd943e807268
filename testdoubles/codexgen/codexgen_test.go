package codexgen

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/runtimes/codex/rollout"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The generated rollouts are ones cdevd's Codex reader takes as they are:
// listed for their workspace with the prompt as summary, every generated
// message counted and paged newest first, and nothing else a message.
func TestCodexReadsGeneratedRollouts(t *testing.T) {
	ctx := context.Background()
	home, dir := t.TempDir(), t.TempDir()
	const id = "00000001-0000-4000-8000-000000000001"
	g := New(id, dir)
	if err := g.Write(g.Path(home), 0, 30); err != nil {
		t.Fatal(err)
	}
	if g.Messages() < 5 {
		t.Fatalf("generator counted %d messages in 30 lines", g.Messages())
	}
	s := rollout.New(home, nil)
	defer s.Close() // List watches the folders it read
	list, err := s.List(ctx, dir)
	if err != nil || len(list) != 1 || list[0].SessionID != id || list[0].MessageCount != g.Messages() || list[0].Summary != "prompt 0" {
		t.Fatalf("List = %+v, %v; want %s with %d messages, summary \"prompt 0\"", list, err, id, g.Messages())
	}
	page, total, err := s.Messages(ctx, dir, id, 0, 3, true)
	if err != nil || total != g.Messages() || len(page) != 3 {
		t.Fatalf("Messages = %d of %d, %v; want 3 of %d", len(page), total, err, g.Messages())
	}
	if other, err := s.List(ctx, t.TempDir()); err != nil || len(other) != 0 {
		t.Errorf("another workspace lists %+v, %v", other, err)
	}
}

// Write by size stops at the first turn that reaches it, and the
// session_meta line is as big as the pinned CLI's.
func TestWriteBySize(t *testing.T) {
	g := New("00000001-0000-4000-8000-000000000002", "/w")
	g.Pad = "pad"
	p := g.Path(t.TempDir())
	if err := g.Write(p, 256<<10, 0); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Size() < 256<<10 || fi.Size() > 256<<10+8<<10 {
		t.Fatalf("size %v, %v; want 256 KB and at most a turn more", fi.Size(), err)
	}
	if h := g.Header()[0]; len(h) < 20<<10 {
		t.Errorf("session_meta of %d bytes, want about 20 kB as Codex writes", len(h))
	}
}
