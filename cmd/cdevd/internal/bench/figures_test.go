package bench

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A row reports the median of its samples and of their ratios, and its
// verdict follows the target and whether anything was lost.
func TestRowMedianAndVerdict(t *testing.T) {
	ratio := figure{title: "rt", baseName: "echo", ratioMax: 1.5, target: "≤ 1.5×"}
	r := ratio.row([]sample{{value: 0.003, base: 0.001}, {value: 0.0012, base: 0.001}, {value: 0.0014, base: 0.001}})
	if r.value != "1.40 ms" || r.baseline != "1.00 ms (echo)" || r.ratio != "1.40×" || r.spread != "1.20–3.00×" || r.met != "yes" {
		t.Errorf("ratio row = %+v", r)
	}
	r = ratio.row([]sample{{value: 0.002, base: 0.001}, {value: 0.0016, base: 0.001}, {value: 0.0012, base: 0.001}})
	if r.ratio != "1.60×" || r.met != "no" {
		t.Errorf("ratio row over target = %+v", r)
	}
	abs := figure{title: "p99", valueMax: 0.010, target: "≤ 10 ms"}
	r = abs.row([]sample{{value: 0.004, note: "lost 0"}, {value: 0.005, note: "lost 0"}, {value: 0.006, note: "lost 2", failed: true}})
	if r.value != "5.00 ms" || r.ratio != "-" || r.spread != "4.00 ms–6.00 ms" || r.met != "no" {
		t.Errorf("a row where events were lost = %+v, want not met", r)
	}
	mem := figure{title: "rss", unit: unitBytes, baseName: "bare echo", valueMax: 12 << 10}
	if r := mem.row([]sample{{value: 10 << 10, base: 20 << 10}}); r.value != "10.0 KB" || r.ratio != "0.50×" || r.met != "yes" {
		t.Errorf("memory row = %+v", r)
	}
}
