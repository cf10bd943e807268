package main

// Measuring the daemon (from /proc and /metrics), waiting for its figures
// to settle, and the report that compares them with the baseline.

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// figures are what the soak watches in the daemon process.
type figures struct {
	Goroutines int
	FDs        int
	Inotify    int
	Children   int
	Threads    int
	RSS        int64
	HeapInuse  int64
	HeapLive   int64 // allocated and not freed: after a GC, what is still reachable
	Conns      int
}

func measure(p *daemonProc) (figures, error) {
	var f figures
	pid := p.cmd.Process.Pid
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return f, err
	}
	f.FDs = len(fds)
	for _, e := range fds {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && l == "anon_inode:inotify" {
			f.Inotify++
		}
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return f, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.Fields(v + " 0")[0], 10, 64)
		switch k {
		case "VmRSS":
			f.RSS = n << 10
		case "Threads":
			f.Threads = int(n)
		}
	}
	f.Children = len(descendants(pid))
	m, err := scrape(p.Addr, p.Token)
	if err != nil {
		return f, err
	}
	f.Goroutines, f.Conns = int(m["go_goroutines"]), int(m["cdevd_connections_open"])
	f.HeapInuse, f.HeapLive = int64(m["go_memstats_heap_inuse_bytes"]), int64(m["go_memstats_heap_alloc_bytes"])
	// The scrape's own connection is counted in FDs above only if it was
	// still open; it is closed (req.Close) before the next measure.
	return f, nil
}

// peakRSS is the daemon's high-water RSS (VmHWM).
func peakRSS(pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v + " 0")[0], 10, 64)
			return n << 10
		}
	}
	return 0
}

// descendants lists every process below pid, at any depth.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(fields[1])
		parent[p] = pp
	}
	var out []int
	for p := range parent {
		for q, hops := parent[p], 0; q != 0 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// scrape reads the numeric samples of /metrics (no labels).
func scrape(addr, token string) (map[string]float64, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Close = true
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			out[name] = n
		}
	}
	return out, sc.Err()
}

// settleAt measures until the counts equal want's (or for o.settle), so
// that connections and processes still closing are not counted; with no
// want, until two measures a second apart agree.
func settleAt(ctx context.Context, p *daemonProc, want *figures, o options) (figures, error) {
	deadline := time.Now().Add(o.settle)
	var prev figures
	for i := 0; ; i++ {
		f, err := measure(p)
		if err != nil {
			return f, err
		}
		var done bool
		if want == nil {
			done = i > 0 && sameCounts(f, prev)
		} else {
			done = sameCounts(f, *want)
		}
		if done || time.Now().After(deadline) {
			return f, nil
		}
		prev = f
		select {
		case <-ctx.Done():
			return f, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func sameCounts(a, b figures) bool {
	return a.Goroutines == b.Goroutines && a.FDs == b.FDs && a.Inotify == b.Inotify && a.Children == b.Children
}

func maxFigures(a, b figures) figures {
	return figures{Goroutines: max(a.Goroutines, b.Goroutines), FDs: max(a.FDs, b.FDs), Inotify: max(a.Inotify, b.Inotify),
		Children: max(a.Children, b.Children), Threads: max(a.Threads, b.Threads), RSS: max(a.RSS, b.RSS),
		HeapInuse: max(a.HeapInuse, b.HeapInuse), HeapLive: max(a.HeapLive, b.HeapLive), Conns: max(a.Conns, b.Conns)}
}

func report(o options, l *load, base, peak, closed, cleared figures, loadTime time.Duration, closedRSS int64) bool {
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	fmt.Printf("\nload: %v; %d turns, %d sends, %d events received, %d reconnections (%d cut off by the server as too slow), %d gaps reported, %d other calls\n",
		loadTime.Round(time.Second), l.cnt.turns.Load(), l.cnt.sends.Load(), l.cnt.events.Load(), l.cnt.reconnects.Load(),
		l.cnt.cutOff.Load(), l.cnt.gaps.Load(), l.cnt.calls.Load())
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\tbaseline\tpeak\tclosed\tcleared\t")
	row := func(name string, get func(figures) string) {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t\n", name, get(base), get(peak), get(closed), get(cleared))
	}
	row("connections", func(f figures) string { return strconv.Itoa(f.Conns) })
	row("goroutines", func(f figures) string { return strconv.Itoa(f.Goroutines) })
	row("open fds", func(f figures) string { return strconv.Itoa(f.FDs) })
	row("inotify instances", func(f figures) string { return strconv.Itoa(f.Inotify) })
	row("child processes", func(f figures) string { return strconv.Itoa(f.Children) })
	row("threads", func(f figures) string { return strconv.Itoa(f.Threads) })
	row("RSS", func(f figures) string { return mib(f.RSS) })
	row("Go heap in use", func(f figures) string { return mib(f.HeapInuse) })
	row("Go heap allocated", func(f figures) string { return mib(f.HeapLive) })
	_ = w.Flush()
	fmt.Println("peak RSS is the process's high-water mark (VmHWM); closed: sessions stopped, connections closed, ReplayAge waited out;")
	fmt.Println("cleared: then sessions deleted, workspaces removed; both after a GC that returns unused heap to the OS")
	fmt.Printf("(RSS right after closing, before ReplayAge and that GC: %s)\n", mib(closedRSS))

	ok := true
	failf := func(format string, args ...any) {
		fmt.Printf("FAIL: "+format+"\n", args...)
		ok = false
	}
	for _, c := range []struct {
		name       string
		base, left int
	}{{"goroutines", base.Goroutines, cleared.Goroutines}, {"open fds", base.FDs, cleared.FDs},
		{"inotify instances", base.Inotify, cleared.Inotify}, {"child processes", base.Children, cleared.Children}} {
		if c.left != c.base {
			failf("%s: %d after everything closed, %d at the baseline", c.name, c.left, c.base)
		}
	}
	for _, f := range []struct {
		phase string
		figures
	}{{"closed", closed}, {"cleared", cleared}} {
		if f.RSS > base.RSS+o.rssTolerance {
			failf("%s: RSS %s is more than %s above the baseline %s", f.phase, mib(f.RSS), mib(o.rssTolerance), mib(base.RSS))
		}
		if f.HeapLive > base.HeapLive+o.heapTolerance {
			failf("%s: allocated heap %s is more than %s above the baseline %s", f.phase, mib(f.HeapLive), mib(o.heapTolerance), mib(base.HeapLive))
		}
	}
	if n := l.cnt.failures.Load(); n > 0 {
		failf("%d client-side failures (%d clients dropped by the server as unresponsive: 1001 ping timeout); the first:\n  %s", n, l.cnt.unresponsive.Load(), strings.Join(l.cnt.firstFailures, "\n  "))
	}
	if l.cnt.turns.Load() == 0 {
		failf("no turn completed")
	}
	if ok {
		fmt.Printf("PASS (tolerances above the baseline: RSS %s, allocated heap %s)\n", mib(o.rssTolerance), mib(o.heapTolerance))
	}
	return ok
}
