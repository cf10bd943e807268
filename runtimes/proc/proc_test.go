package proc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/runtimes/proc"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

// The test binary doubles as the child process: with PROC_HELPER set it
// runs one of the helpers below instead of the tests (the os/exec_test.go
// pattern).
func TestMain(m *testing.M) {
	if h := os.Getenv("PROC_HELPER"); h != "" {
		os.Exit(runHelper(h))
	}
	goleak.VerifyTestMain(m)
}

func runHelper(name string) int {
	switch name {
	case "lines":
		fmt.Print("one\r\ntwo\n\nthree")
		fmt.Fprint(os.Stderr, "warn 1\nwarn 2\n")
	case "echo":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println(sc.Text())
		}
	case "exit":
		code, _ := strconv.Atoi(os.Getenv("PROC_CODE"))
		return code
	case "sleep":
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "await-stdin":
		// Never reads stdin; says when bytes are waiting in the pipe, which
		// means the parent is inside a Write too big for the pipe to hold.
		for {
			n, err := stdinQueued()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			if n > 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		fmt.Println("pending")
		time.Sleep(time.Hour)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "spawn-grandchild":
		// The grandchild shares our stdout and process group but not our
		// death: it survives SIGTERM and outlives us unless the runner
		// kills the whole group.
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "PROC_HELPER=ignore-term")
		gc.Stdout = os.Stdout
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("grandchild %d\n", gc.Process.Pid)
		time.Sleep(time.Hour)
	case "spawn-setsid":
		// The grandchild leaves our session and process group, so the
		// runner's group kill misses it, but keeps our stdout open.
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "PROC_HELPER=sleep")
		gc.Stdout = os.Stdout
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("grandchild %d\n", gc.Process.Pid)
		time.Sleep(time.Hour)
	case "pid":
		fmt.Printf("pid %d\n", os.Getpid())
		time.Sleep(time.Hour)
	case "tree":
		// A CLI that leaves two kinds of descendant: one in its process
		// group, and one that left the group and the session (setsid) and
		// whose parent is gone (a double fork). Both hold its stdout.
		if os.Getenv("PROC_IGNORE_TERM") != "" {
			signal.Ignore(syscall.SIGTERM)
		}
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "PROC_HELPER=hold")
		gc.Stdout = os.Stdout
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("grandchild %d\n", gc.Process.Pid)
		df := exec.Command(os.Args[0])
		df.Env = append(os.Environ(), "PROC_HELPER=double-fork")
		df.Stdout = os.Stdout
		df.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := df.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("ready")
		if code := os.Getenv("PROC_EXIT"); code != "" {
			n, _ := strconv.Atoi(code)
			return n
		}
		time.Sleep(time.Hour)
	case "double-fork":
		e := exec.Command(os.Args[0])
		e.Env = append(os.Environ(), "PROC_HELPER=hold")
		e.Stdout = os.Stdout
		if err := e.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("escapee %d\n", e.Process.Pid)
	case "hold":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
	case "daemon":
		// A daemon of its own that a test can SIGKILL: it runs the tree
		// CLI through proc and passes on what it prints.
		p, err := proc.Start(proc.Config{
			Path:   os.Args[0],
			Env:    append(os.Environ(), "PROC_HELPER=tree"),
			OnLine: func(l []byte) { fmt.Println(string(l)) },
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("supervisor %d\n", p.Pid())
		time.Sleep(time.Hour)
	case "bigline":
		size, _ := strconv.Atoi(os.Getenv("PROC_SIZE"))
		fmt.Println("first")
		fmt.Print(strings.Repeat("x", size))
		if os.Getenv("PROC_LAST") == "" {
			fmt.Print("\nafter\n")
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", name)
		return 2
	}
	return 0
}

// child is a started helper and what it printed.
type child struct {
	*proc.Process
	lines chan string
}

// startHelper runs helper as a child; cfg.Path, Env and OnLine are set here.
// The process is stopped when the test ends.
func startHelper(t *testing.T, helper string, cfg proc.Config, env ...string) *child {
	t.Helper()
	c := &child{lines: make(chan string, 1000)}
	cfg.Path = os.Args[0]
	// A -race binary sleeps a second at exit unless told otherwise.
	cfg.Env = append(append(os.Environ(), "PROC_HELPER="+helper, "GORACE=atexit_sleep_ms=0"), env...)
	cfg.OnLine = func(line []byte) { c.lines <- string(line) }
	p, err := proc.Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c.Process = p
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Stop(ctx)
	})
	return c
}

const deadline = 10 * time.Second

// next waits for the next stdout line.
func (c *child) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-c.lines:
		return l
	case <-time.After(deadline):
		t.Fatal("timed out waiting for a line")
		return ""
	}
}

// stop calls Stop and fails the test if it does not return in time (the
// process group is then killed so that the test can end).
func (c *child) stop(t *testing.T, ctx context.Context) {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- c.Stop(ctx) }()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(deadline):
		_ = c.Signal(syscall.SIGKILL)
		<-errc
		t.Fatal("Stop did not return")
	}
}

// wait waits for the process to end and returns every line it printed.
func (c *child) wait(t *testing.T) []string {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(deadline):
		t.Fatal("timed out waiting for the process to end")
	}
	// Done means every OnLine call has returned.
	var lines []string
	for {
		select {
		case l := <-c.lines:
			lines = append(lines, l)
		default:
			return lines
		}
	}
}

func TestLinesInOrder(t *testing.T) {
	var mu sync.Mutex
	var stderr []string
	c := startHelper(t, "lines", proc.Config{OnStderr: func(l []byte) {
		mu.Lock()
		defer mu.Unlock()
		stderr = append(stderr, string(l))
	}})
	got := c.wait(t)
	if want := []string{"one", "two", "", "three"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"warn 1", "warn 2"}; !reflect.DeepEqual(stderr, want) {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	if code := c.ExitCode(); code != 0 {
		t.Errorf("ExitCode = %d, want 0", code)
	}
}

func TestOversizeLineDropped(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		maxLine int
		last    bool // the big line is the last output, without newline
		want    []string
		dropped []int
	}{
		{name: "over", size: 5000, maxLine: 1000, want: []string{"first", "after"}, dropped: []int{5000}},
		{name: "exactly max", size: 1000, maxLine: 1000, want: []string{"first", strings.Repeat("x", 1000), "after"}},
		{name: "over the read buffer", size: 300 << 10, maxLine: 100 << 10, want: []string{"first", "after"}, dropped: []int{300 << 10}},
		{name: "under max, over the read buffer", size: 100 << 10, maxLine: 200 << 10, want: []string{"first", strings.Repeat("x", 100<<10), "after"}},
		{name: "last without newline", size: 5000, maxLine: 1000, last: true, want: []string{"first"}, dropped: []int{5000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var dropped []int
			env := []string{"PROC_SIZE=" + strconv.Itoa(tt.size)}
			if tt.last {
				env = append(env, "PROC_LAST=1")
			}
			c := startHelper(t, "bigline", proc.Config{MaxLine: tt.maxLine, OnOversize: func(n int) {
				mu.Lock()
				defer mu.Unlock()
				dropped = append(dropped, n)
			}}, env...)
			got := c.wait(t)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %d lines %.40q, want %d lines %.40q", len(got), got, len(tt.want), tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if !reflect.DeepEqual(dropped, tt.dropped) {
				t.Errorf("OnOversize got %v, want %v", dropped, tt.dropped)
			}
		})
	}
}

func TestStallTimer(t *testing.T) {
	clock := &proctest.Clock{}
	stalls := 0 // OnStall runs inside fire, on the test goroutine
	c := startHelper(t, "echo", proc.Config{
		StallTimeout: time.Minute,
		Clock:        clock,
		OnStall:      func() { stalls++ },
	})
	roundTrip := func(s string) {
		t.Helper()
		if err := c.Write([]byte(s + "\n")); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if got := c.next(t); got != s {
			t.Fatalf("echo = %q, want %q", got, s)
		}
	}

	roundTrip("disarmed")
	if n := clock.Count(); n != 0 {
		t.Fatalf("output while disarmed started %d timers", n)
	}

	c.ArmStall()
	if n := clock.Count(); n != 1 {
		t.Fatalf("ArmStall started %d timers, want 1", n)
	}
	armed := clock.Last()
	roundTrip("output resets")
	if n := clock.Count(); n != 2 {
		t.Fatalf("output while armed: %d timers, want 2", n)
	}
	reset := clock.Last()
	if !armed.Stopped() {
		t.Error("the timer replaced by output was not stopped")
	}
	armed.Fire()
	if stalls != 0 {
		t.Fatal("a replaced timer fired OnStall")
	}
	reset.Fire()
	if stalls != 1 {
		t.Fatalf("OnStall called %d times, want 1", stalls)
	}
	reset.Fire()
	if stalls != 1 {
		t.Fatal("OnStall fired twice for one arming")
	}
	roundTrip("after firing")
	if n := clock.Count(); n != 2 {
		t.Fatal("output after the stall fired restarted the timer")
	}

	c.ArmStall()
	disarmed := clock.Last()
	c.DisarmStall()
	if !disarmed.Stopped() {
		t.Error("DisarmStall did not stop the timer")
	}
	disarmed.Fire()
	if stalls != 1 {
		t.Fatal("OnStall fired after DisarmStall")
	}
}

func TestStopGraceful(t *testing.T) {
	c := startHelper(t, "sleep", proc.Config{KillGrace: time.Hour})
	if got := c.next(t); got != "ready" {
		t.Fatalf("first line %q", got)
	}
	// With an hour of grace, returning at all shows SIGTERM did it.
	c.stop(t, context.Background())
	if code := c.ExitCode(); code != -1 {
		t.Errorf("ExitCode = %d, want -1 (signal)", code)
	}
}

func TestStopEscalatesToKill(t *testing.T) {
	tests := []struct {
		name  string
		grace time.Duration
		ctx   func() context.Context
	}{
		{"after KillGrace", 50 * time.Millisecond, context.Background},
		{"when ctx ends", time.Hour, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startHelper(t, "ignore-term", proc.Config{KillGrace: tt.grace})
			if got := c.next(t); got != "ready" { // SIGTERM is ignored from now on
				t.Fatalf("first line %q", got)
			}
			c.stop(t, tt.ctx())
			if code := c.ExitCode(); code != -1 {
				t.Errorf("ExitCode = %d, want -1 (killed)", code)
			}
		})
	}
}

func TestStopConcurrentAndRepeated(t *testing.T) {
	c := startHelper(t, "ignore-term", proc.Config{KillGrace: 50 * time.Millisecond})
	c.next(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() { errs <- c.Stop(context.Background()) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Stop: %v", err)
		}
	}
	c.stop(t, context.Background())
}

func TestExitCodeAndWriteAfterExit(t *testing.T) {
	c := startHelper(t, "exit", proc.Config{}, "PROC_CODE=3")
	c.wait(t)
	if code := c.ExitCode(); code != 3 {
		t.Errorf("ExitCode = %d, want 3", code)
	}
	if err := c.Write([]byte("hello\n")); !errors.Is(err, proc.ErrExited) {
		t.Errorf("Write after exit = %v, want ErrExited", err)
	}
	c.stop(t, context.Background())
}

func TestExitCodeForSignal(t *testing.T) {
	c := startHelper(t, "sleep", proc.Config{})
	c.next(t)
	if err := c.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("Signal: %v", err)
	}
	c.wait(t)
	if code := c.ExitCode(); code != -1 {
		t.Errorf("ExitCode = %d, want -1", code)
	}
}

func TestWriteReachesStdin(t *testing.T) {
	c := startHelper(t, "echo", proc.Config{})
	for _, s := range []string{"a", "b c", ""} {
		if err := c.Write([]byte(s + "\n")); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if got := c.next(t); got != s {
			t.Errorf("echo = %q, want %q", got, s)
		}
	}
	// The helper exits on EOF.
	if err := c.CloseStdin(); err != nil {
		t.Fatalf("CloseStdin: %v", err)
	}
	c.wait(t)
	if code := c.ExitCode(); code != 0 {
		t.Errorf("ExitCode = %d, want 0", code)
	}
}

func TestStopWhileWriteBlocked(t *testing.T) {
	c := startHelper(t, "await-stdin", proc.Config{})
	werr := make(chan error, 1)
	go func() { werr <- c.Write(make([]byte, 4<<20)) }() // far more than a pipe holds
	if got := c.next(t); got != "pending" {
		t.Fatalf("first line %q", got)
	}
	c.stop(t, context.Background())
	select {
	case err := <-werr:
		if !errors.Is(err, proc.ErrExited) {
			t.Errorf("blocked Write = %v, want ErrExited", err)
		}
	case <-time.After(deadline):
		t.Fatal("Write still blocked after Stop")
	}
}

func TestStallNotArmedAfterExit(t *testing.T) {
	clock := &proctest.Clock{}
	c := startHelper(t, "exit", proc.Config{StallTimeout: time.Minute, Clock: clock})
	c.wait(t)
	c.ArmStall()
	if n := clock.Count(); n != 0 {
		t.Errorf("ArmStall after exit started %d timers", n)
	}
}
