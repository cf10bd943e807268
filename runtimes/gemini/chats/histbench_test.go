package chats

import (
	"context"
	"fmt"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// BenchmarkHistoryGenerated lists a workspace of 1,000 sessions written as
// the cdevd bench writes them (geminigen, 10 to 30 lines each) with a new
// Store each time: the gemini-history-first and -restart rows without the
// daemon around them (allocs/op, cpu-ms/op and strace -c of it are the
// figures that do not move with the machine's load).
func BenchmarkHistoryGenerated(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	for i := range 1000 {
		g := geminigen.New(fmt.Sprintf("%08d-%04d-4000-8000-000000000000", i, 11), ws)
		if err := g.Write(g.Path(home), 0, 10+2*(i%11)); err != nil {
			b.Fatal(err)
		}
	}
	cache := b.TempDir()
	cpu := cpuTime()
	for b.Loop() {
		s := New(home, nil).WithCacheDir(cache) // the daemon has one
		if list, err := s.List(context.Background(), ws); err != nil || len(list) != 1000 {
			b.Fatalf("%d, %v", len(list), err)
		}
		s.Close()
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
