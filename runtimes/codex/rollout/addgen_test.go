package rollout

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/claudegen"
	"github.com/cdevd/cdevd/testdoubles/codexgen"
)

// BenchmarkAddGenerated indexes the lines of 10 MB of rollout as the cdevd
// bench writes it (codexgen, its answers and command outputs padded), held
// in memory: the CPU and allocations of the codex-page-cold row's scan,
// without its reads.
func BenchmarkAddGenerated(b *testing.B) {
	g := codexgen.New(threadA, "/w")
	g.Pad = claudegen.LoremPad
	p := filepath.Join(b.TempDir(), "r.jsonl")
	if err := g.Write(p, 10<<20, 0); err != nil {
		b.Fatal(err)
	}
	benchAdd(b, p)
}

// benchAdd indexes the lines of the file at p, held in memory, reporting
// CPU and allocations per pass.
func benchAdd(b *testing.B, p string) {
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(data[:len(data)-1], []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cpuMeter(b)
	for b.Loop() {
		x := &index{}
		for _, l := range lines {
			x.add(l)
		}
	}
	cpu()
}

// BenchmarkFirstPageGenerated is the codex-page-cold row in one process:
// the first page of 50 of a never-read 100 MB rollout written as the cdevd
// bench writes it, through a new Store each time; cpu-ms/op (both cores,
// the collector included) moves less with the machine's load than ns/op.
func BenchmarkFirstPageGenerated(b *testing.B) {
	home := b.TempDir()
	g := codexgen.New(threadA, "/w")
	g.Pad = claudegen.LoremPad
	if err := g.Write(g.Path(home), 100<<20, 0); err != nil {
		b.Fatal(err)
	}
	cpu := cpuMeter(b)
	for b.Loop() {
		s := newStore(b, home)
		if page, _, err := s.Messages(context.Background(), "/w", threadA, 0, 50, true); err != nil || len(page) != 50 {
			b.Fatalf("%d, %v", len(page), err)
		}
		s.Close()
	}
	cpu()
}
