package rollout

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/codexgen"
)

// BenchmarkHistoryGenerated lists a workspace of 1,000 rollouts written as
// the cdevd bench writes them (codexgen, 10 to 30 lines each, every one of
// the workspace) with a new Store each time: the codex-history-first and
// -restart rows without the daemon around them (allocs/op, cpu-ms/op and
// strace -c of it are the figures that do not move with the machine's load).
func BenchmarkHistoryGenerated(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	for i := range 1000 {
		g := codexgen.New(fmt.Sprintf("%08d-%04d-4000-8000-000000000000", i, 11), ws)
		if err := g.Write(g.Path(filepath.Join(home, ".codex")), 0, 10+2*(i%11)); err != nil {
			b.Fatal(err)
		}
	}
	cache := b.TempDir()
	cpu := cpuMeter(b)
	for b.Loop() {
		s := New(filepath.Join(home, ".codex"), nil).WithCacheDir(cache) // the daemon has one
		if list, err := s.List(context.Background(), ws); err != nil || len(list) != 1000 {
			b.Fatalf("%d, %v", len(list), err)
		}
		s.Close()
	}
	cpu()
}
