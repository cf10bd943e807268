package usage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes/claude/transcript"
	"github.com/cdevd/cdevd/testdoubles/claudegen"
)

// BenchmarkSummarizeClaude sums one day of a 20,000-message Claude Code
// session (about 20 MB, every message on that day: the whole file is read),
// and the same file for the next day (nothing is: the session was last
// written before it), through the real transcript reader.
func BenchmarkSummarizeClaude(b *testing.B) {
	projects := filepath.Join(b.TempDir(), "projects")
	dir := b.TempDir()
	store := transcript.New(projects, nil)
	b.Cleanup(func() { store.Close() }) // its listing's watch
	folder := store.Dir(dir)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		b.Fatal(err)
	}
	const id = "3f9c1b0e-5a7d-4c2e-8b6a-9f1d0c3e5a7b"
	g := claudegen.New(id, dir)
	g.Pad = claudegen.LoremPad
	if err := g.Write(filepath.Join(folder, id+".jsonl"), 0, 20_000); err != nil {
		b.Fatal(err)
	}
	src := []Source{{WorkspaceID: "ws", Dir: dir, AgentType: "claude", Transcripts: store}}
	day := time.Date(2026, 1, 2, 23, 0, 0, 0, time.UTC) // claudegen's day
	for _, c := range []struct {
		name string
		now  time.Time
		msgs int
	}{{"that-day", day, 10_000}, {"next-day", day.AddDate(0, 0, 1), 0}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := Summarize(context.Background(), src, 1, c.now)
				if err != nil || res.Total.Messages != c.msgs {
					b.Fatalf("%v: %d messages, want %d", err, res.Total.Messages, c.msgs)
				}
			}
		})
	}
}
