// Command soak holds cdevd under load for a while and checks that what it
// holds returns to where it started once the load is gone.
//
//	go run ./contracttests/soak [-duration 5m] [-conns 1000] [-sessions 100]
//
// It starts cdevd as a separate process (this binary in its "daemon" role:
// daemon.Start with the scripted runtime, whose fake CLI is this binary
// too), on 127.0.0.1 with a temporary home, and measures that process from
// /proc and /metrics: goroutines, open fds, inotify instances, descendant
// processes, RSS and Go heap. Phases:
//
//  1. baseline: the daemon started, nothing connected;
//  2. load, for -duration: -sessions owners each run a scripted session and
//     send a turn every few seconds; the other connections watch a random
//     session (one in ten also subscribes to its workspace) and, every few
//     seconds to a minute, drop their connection (close frame, FIN, RST, or
//     half a frame) and come back with since_seq, checking that the events
//     continue with no gap and no duplicate; peak figures are sampled;
//  3. closed: sessions stopped, every connection closed, and -replay-age
//     waited out (a session stopped and unwatched that long gives back its
//     replay buffer), then the Go heap returned to the OS;
//  4. cleared: sessions deleted and workspaces removed, then the Go heap
//     returned to the OS (SIGUSR1 to the daemon role runs debug.FreeOSMemory), so that
//     RSS shows what is still held rather than what the runtime caches.
//
// It fails (exit 1) when, after phase 4, goroutines, fds, inotify instances
// or child processes differ from the baseline; when the allocated Go heap
// exceeds the baseline by more than -heap-tolerance (8 MiB) or RSS by more
// than -rss-tolerance (32 MiB: the runtime keeps the threads it started and
// metadata sized by its peak heap, which is not a leak); or when a client
// saw a gap, a duplicate, or was disconnected for any reason but 1013. Everything is bounded: connections and sessions by the flags,
// time by -duration plus a fixed allowance, after which the daemon is
// killed and the soak fails.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/sessions"
)

func main() {
	if scripted.IsCLI() {
		scripted.Main()
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "daemon" {
		if err := serve(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "soak daemon:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(drive(os.Args[1:]))
}

// hello is what the daemon role prints on stdout once it listens.
type hello struct {
	URL   string `json:"url"`
	Addr  string `json:"addr"`
	Token string `json:"token"`
}

// serve is the daemon role: cdevd with the scripted runtime, until SIGTERM
// or the end of stdin (the driver is gone).
func serve(args []string) error {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	home := fs.String("home", "", "cdevd home")
	maxProcs := fs.Int("max-processes", 8, "live processes per runtime")
	replayAge := fs.Duration("replay-age", 0, "sessions.Config.ReplayAge (0: the default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	log, err := zap.NewProduction()
	if err != nil {
		return err
	}
	log = log.WithOptions(zap.IncreaseLevel(zap.WarnLevel))
	d, err := daemon.Start(daemon.Config{Home: *home, Addr: "127.0.0.1:0", MaxProcesses: *maxProcs, Logger: log,
		Sessions: sessions.Config{ReplayAge: *replayAge},
		Adapters: []runtimes.Adapter{scripted.New(scripted.Config{Bin: self, StateDir: filepath.Join(*home, "scripted"), Logger: log})}})
	if err != nil {
		return err
	}
	if err := json.NewEncoder(os.Stdout).Encode(hello{URL: d.URL(), Addr: d.Addr(), Token: d.Token()}); err != nil {
		return err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1)
	profiles := 0
	stdin := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdin)
	}()
loop:
	for {
		select {
		case s := <-sigs:
			if s != syscall.SIGUSR1 {
				break loop
			}
			// A measuring aid: what the heap no longer uses goes back to
			// the OS now rather than over the next minutes.
			debug.FreeOSMemory()
			profiles++
			if err := writeHeapProfile(filepath.Join(*home, fmt.Sprintf("heap-%d.pprof", profiles))); err != nil {
				return err
			}
			fmt.Println("freed")
		case <-stdin:
			break loop
		case err := <-d.Done():
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return d.Shutdown(ctx)
}

// writeHeapProfile records what the heap still holds, for a reader of a
// soak that did not return to its baseline.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type options struct {
	duration      time.Duration
	conns         int
	sessions      int
	workspaces    int
	turnEvery     time.Duration
	rssTolerance  int64 // bytes
	heapTolerance int64 // bytes
	settle        time.Duration
	replayAge     time.Duration
	seed          uint64
	keep          bool
}

func drive(args []string) int {
	var o options
	var rssMB int64
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.DurationVar(&o.duration, "duration", 5*time.Minute, "how long the load lasts")
	fs.IntVar(&o.conns, "conns", 1000, "WebSocket connections held during the load (owners included)")
	fs.IntVar(&o.sessions, "sessions", 100, "scripted sessions, one owner connection each")
	fs.IntVar(&o.workspaces, "workspaces", 10, "workspaces the sessions are spread over")
	fs.DurationVar(&o.turnEvery, "turn-every", 3*time.Second, "mean pause between an owner's turns")
	var heapMB int64
	fs.Int64Var(&rssMB, "rss-tolerance", 32, "MiB of RSS above the baseline still counted as returned")
	fs.Int64Var(&heapMB, "heap-tolerance", 8, "MiB of allocated Go heap above the baseline still counted as returned")
	fs.DurationVar(&o.settle, "settle", time.Minute, "how long to wait for figures to return to the baseline")
	fs.DurationVar(&o.replayAge, "replay-age", 20*time.Second,
		"the daemon's ReplayAge: a session stopped and unwatched this long gives back its replay buffer")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory: the daemon's log and heap profiles")
	fs.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "random seed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o.rssTolerance, o.heapTolerance = rssMB<<20, heapMB<<20
	if o.sessions < 1 || o.conns < o.sessions || o.workspaces < 1 || o.duration <= 0 {
		fmt.Fprintln(os.Stderr, "soak: need duration > 0, sessions ≥ 1, conns ≥ sessions, workspaces ≥ 1")
		return 2
	}
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// daemonProc is the cdevd under test.
type daemonProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
	hello
}

func startDaemon(ctx context.Context, root string, maxProcs int, replayAge time.Duration) (*daemonProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(root, "daemon.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, self, "daemon", "-home", home, "-max-processes", strconv.Itoa(maxProcs),
		"-replay-age", replayAge.String())
	cmd.Stderr = logf
	// It dies with the driver, whatever happens to the driver.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &daemonProc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	if !p.out.Scan() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the daemon did not start (see %s)", logf.Name())
	}
	if err := json.Unmarshal(p.out.Bytes(), &p.hello); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("daemon said %q: %w", p.out.Text(), err)
	}
	return p, nil
}

// freeOSMemory asks the daemon role to return its unused heap to the OS
// and waits until it has.
func (p *daemonProc) freeOSMemory() error {
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return err
	}
	if !p.out.Scan() || p.out.Text() != "freed" {
		return errors.New("the daemon did not confirm freeing memory")
	}
	return nil
}

// stop ends the daemon with SIGTERM and waits.
func (p *daemonProc) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	return p.cmd.Wait()
}

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

var began = time.Now()

// progress prints a step of the soak with the time since it began.
func progress(format string, args ...any) {
	fmt.Printf("[%6.1fs] %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
}

// counters are what the load saw.
type counters struct {
	turns, sends, events, reconnects, cutOff, gaps, calls atomic.Int64
	unresponsive                                          atomic.Int64 // dropped by the server: pings unanswered
	failures                                              atomic.Int64
	mu                                                    sync.Mutex
	firstFailures                                         []string
}

// dropped counts a client the server disconnected with 1001 (ping timeout):
// on a machine too busy to run the soak's clients, pongs come too late.
func (c *counters) dropped(cn *conn) {
	if cn.closeCode() == websocket.CloseGoingAway {
		c.unresponsive.Add(1)
	}
}

func (c *counters) fail(format string, args ...any) {
	c.failures.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.firstFailures) < 20 {
		c.firstFailures = append(c.firstFailures, fmt.Sprintf(format, args...))
	}
}

func run(o options) (bool, error) {
	root, err := os.MkdirTemp("", "cdevd-soak-")
	if err != nil {
		return false, err
	}
	if o.keep {
		defer progress("kept %s (daemon.log, home/heap-*.pprof)", root)
	} else {
		defer os.RemoveAll(root)
	}
	// The hard bound: whatever happens, the daemon is killed after this.
	ctx, cancel := context.WithTimeout(context.Background(), o.duration+5*time.Minute+o.settle)
	defer cancel()

	progress("seed %d, %d connections, %d sessions in %d workspaces, %v",
		o.seed, o.conns, o.sessions, o.workspaces, o.duration)
	p, err := startDaemon(ctx, root, o.sessions, o.replayAge)
	if err != nil {
		return false, err
	}
	defer func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	}()
	baseline, err := settleAt(ctx, p, nil, o)
	if err != nil {
		return false, fmt.Errorf("baseline: %w", err)
	}
	progress("daemon %d up; baseline taken", p.cmd.Process.Pid)

	l := &load{o: o, p: p, rng: rand.New(rand.NewPCG(o.seed, o.seed^0x5eed)), cnt: &counters{}}
	peak := baseline
	loadStart := time.Now()
	if err := l.setUp(ctx, root); err != nil {
		return false, err
	}
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
				if f, err := measure(p); err == nil {
					peak = maxFigures(peak, f)
				}
			}
		}
	}()
	progress("load running")
	l.run(ctx)
	progress("load over")
	close(stopSampling)
	<-sampled
	loadTime := time.Since(loadStart)
	if f, err := measure(p); err == nil {
		peak = maxFigures(peak, f)
	}
	peak.RSS = max(peak.RSS, peakRSS(p.cmd.Process.Pid))

	// Phase 3: sessions stopped, connections closed.
	l.closeAll(ctx)
	progress("sessions stopped, connections closed")
	closedRSS := int64(0)
	if f, err := measure(p); err == nil {
		closedRSS = f.RSS
	}
	// Stopped, unwatched sessions give back their replay buffers once
	// ReplayAge has passed (the daemon's timers, not ours, decide when).
	progress("waiting %v for quiet sessions to give back their buffers", o.replayAge)
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(o.replayAge + 2*time.Second):
	}
	if err := p.freeOSMemory(); err != nil {
		return false, err
	}
	closed, err := settleAt(ctx, p, &baseline, o)
	if err != nil {
		return false, fmt.Errorf("after closing: %w", err)
	}
	// Phase 4: sessions forgotten, workspaces removed, heap returned.
	if err := l.clear(ctx); err != nil {
		return false, fmt.Errorf("clearing: %w (client-side failures: %d, the first: %q)", err,
			l.cnt.failures.Load(), l.cnt.firstFailures)
	}
	if err := p.freeOSMemory(); err != nil {
		return false, err
	}
	progress("sessions deleted, workspaces removed, heap returned")
	cleared, err := settleAt(ctx, p, &baseline, o)
	if err != nil {
		return false, fmt.Errorf("after clearing: %w", err)
	}
	progress("measured")
	stopErr := p.stop()

	ok := report(o, l, baseline, peak, closed, cleared, loadTime, closedRSS)
	if stopErr != nil {
		fmt.Printf("FAIL: the daemon's shutdown: %v\n", stopErr)
		ok = false
	}
	return ok, nil
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
