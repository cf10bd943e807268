package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/cdevd/cdevd/runtimes/proc"
)

// BenchmarkSpawn measures what a session's supervisor (runtimes/proc) adds
// to starting and ending a CLI, with this binary (all of cdevd) as the
// supervisor: "direct" spawns /bin/true as cdevd did before, "supervised"
// through proc, which waits for the supervisor's start report, and reports
// the supervisor's resident memory while a CLI runs. Run without -race:
//
//	go test -run '^$' -bench Spawn ./cmd/cdevd
func BenchmarkSpawn(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/bin/true")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("supervised", func(b *testing.B) {
		for b.Loop() {
			p, err := proc.Start(proc.Config{Path: "/bin/true"})
			if err != nil {
				b.Fatal(err)
			}
			<-p.Done()
		}
	})
	// Start alone: until the CLI runs.
	b.Run("start/direct", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/bin/sleep", "60")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			b.StartTimer()
		}
	})
	b.Run("start/supervised", func(b *testing.B) {
		var rss, anon int
		for b.Loop() {
			p, err := proc.Start(proc.Config{Path: "/bin/sleep", Args: []string{"60"}})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			rss, anon = memKB(b, p.Pid(), "VmRSS:"), memKB(b, p.Pid(), "RssAnon:")
			_ = p.Stop(context.Background())
			b.StartTimer()
		}
		// RssAnon is the supervisor's own memory; the rest of its RSS is
		// the binary's pages, shared with the daemon through the page cache.
		b.ReportMetric(float64(rss), "rss-kB")
		b.ReportMetric(float64(anon), "anon-kB")
	})
}

// memKB is one kB field of a process's /proc status.
func memKB(b *testing.B, pid int, field string) int {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte(field)); ok {
			n, err := strconv.Atoi(string(bytes.Fields(v)[0]))
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s", field)
	return 0
}
