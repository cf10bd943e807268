package chats

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// freshPageEnv makes the test binary a fresh daemon's first page (freshPage)
// of the folder it names, rather than run tests.
const freshPageEnv = "CDEVD_GEMINI_FRESH_PAGE"

// freshID is the session of BenchmarkRestartFresh's chat file.
const freshID = "0b000000-0000-4000-8000-000000000001"

// freshDirs are the Gemini home, workspace and cache folder in dir.
func freshDirs(dir string) (home, ws, cache string) {
	return filepath.Join(dir, "home"), filepath.Join(dir, "ws"), filepath.Join(dir, "cache")
}

// BenchmarkRestartFresh is the first page of the bench's 100 MB chat file
// (testdoubles/geminigen) in a fresh process whose cache folder holds its
// saved index: the bench's gemini-page-restart row without the daemon. A
// process that has served pages before reuses the memory its collector
// freed (BenchmarkFirstPageBench/restart); a fresh one touches each page of
// memory it uses for the first time, and on the VMs we measure on each such
// fault costs about 20 µs: most of that row's time. faults/op does not move
// with the machine's load.
func BenchmarkRestartFresh(b *testing.B) {
	dir := b.TempDir()
	home, ws, cache := freshDirs(dir)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	g := geminigen.New(freshID, ws)
	g.Pad = strings.Repeat(" lorem ipsum", 85) // claudegen.LoremPad
	if err := g.Write(g.Path(home), 100<<20, 0); err != nil {
		b.Fatal(err)
	}
	s := New(home, nil).WithCacheDir(cache)
	if _, _, err := s.Messages(context.Background(), ws, freshID, 0, 50, true); err != nil {
		b.Fatal(err)
	}
	s.Close() // the index saved
	var faults, cpuUS int64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), freshPageEnv+"="+dir)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("fresh page: %v: %s", err, stderrOf(err))
		}
		var f, c int64
		if _, err := fmt.Sscan(string(out), &f, &c); err != nil {
			b.Fatalf("fresh page said %q: %v", out, err)
		}
		faults, cpuUS = faults+f, cpuUS+c
	}
	b.ReportMetric(float64(faults)/float64(b.N), "faults/op")
	b.ReportMetric(float64(cpuUS)/1000/float64(b.N), "cpu-ms/op")
}

// freshPage serves the first page of BenchmarkRestartFresh's chat file in
// dir from its saved index, and prints the page faults and CPU time (µs)
// that took; it fails (1) unless the page is whole and came from the saved
// index rather than a replay.
func freshPage(dir string) int {
	home, ws, cache := freshDirs(dir)
	faults, cpu := pageFaults(), cpuTime()
	s := New(home, nil).WithCacheDir(cache)
	defer s.Close()
	page, _, err := s.Messages(context.Background(), ws, freshID, 0, 50, true)
	faults, cpu = pageFaults()-faults, cpuTime()-cpu
	if err == nil && len(page) != 50 {
		err = fmt.Errorf("%d messages", len(page))
	}
	if err == nil && s.Stats().FullScans != 0 {
		err = fmt.Errorf("replayed %d files: the saved index was not used", s.Stats().FullScans)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(faults, cpu.Microseconds())
	return 0
}

// stderrOf is what a failed command wrote to its stderr.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
