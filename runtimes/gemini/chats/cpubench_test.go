package chats

import (
	"context"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// BenchmarkFirstPageCPU is BenchmarkFirstPageBench's cold and restart
// pages with the CPU time each took (cpu-ms/op): on a machine shared with
// other work, the time a page took moves with the load far more than what
// it spent.
func BenchmarkFirstPageCPU(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	const id = "0b000000-0000-4000-8000-000000000001"
	g := geminigen.New(id, ws)
	g.Pad = strings.Repeat(" lorem ipsum", 85) // claudegen.LoremPad
	if err := g.Write(g.Path(home), 100<<20, 0); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	page := func(s *Store) {
		if p, _, err := s.Messages(ctx, ws, id, 0, 50, true); err != nil || len(p) != 50 {
			b.Fatalf("%v, %d messages", err, len(p))
		}
	}
	b.Run("cold", func(b *testing.B) {
		cpu, gc := cpuTime(), gcTime()
		for b.Loop() {
			page(New(home, nil))
		}
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		b.ReportMetric((gcTime()-gc)*1000/float64(b.N), "gc-cpu-ms/op")
	})
	b.Run("restart", func(b *testing.B) {
		cache := b.TempDir()
		s := New(home, nil).WithCacheDir(cache)
		page(s) // saves the index
		s.Close()
		cpu := cpuTime()
		for b.Loop() {
			page(New(home, nil).WithCacheDir(cache))
		}
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
}

// gcTime is the CPU time the collector has taken so far, in seconds (as
// the runtime estimates it).
func gcTime() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64()
}
