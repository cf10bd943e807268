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
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/cdevd/cdevd/runtimes/scripted"
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

var began = time.Now()

// progress prints a step of the soak with the time since it began.
func progress(format string, args ...any) {
	fmt.Printf("[%6.1fs] %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
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
