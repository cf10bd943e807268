package chats

import (
	"runtime/metrics"
	"testing"
)

// reportCPU starts counting the CPU time b takes, and the collector's;
// the func it returns reports both per op (cpu-ms/op, gc-cpu-ms/op), and
// the pages first touched (faults/op): on a machine shared with other
// work, the time a page took moves with the load far more than what it
// spent, and the collector's CPU was what a cold first page spent beyond
// 181e316's (see strs.go). The faults are what a fresh daemon's first
// page pays most for (see pageFaults).
func reportCPU(b *testing.B) func() {
	cpu, gc, faults := cpuTime(), gcTime(), pageFaults()
	return func() {
		b.ReportMetric(float64(pageFaults()-faults)/float64(b.N), "faults/op")
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		b.ReportMetric((gcTime()-gc)*1000/float64(b.N), "gc-cpu-ms/op")
	}
}

// gcTime is the CPU time the collector has taken so far, in seconds (as
// the runtime estimates it).
func gcTime() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64()
}
