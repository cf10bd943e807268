package proc_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes/proc"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

var alive = proctest.Alive

// awaitGone polls until none of pids runs, and fails the test (killing
// them, so that nothing leaks) if one still does at the deadline.
func awaitGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		left := slices.DeleteFunc(slices.Clone(pids), func(p int) bool { return !alive(p) })
		if len(left) == 0 {
			return
		}
		if time.Now().After(end) {
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("%s: %v still running", what, left)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// treeLines reads the tree helper's report: the pids of its grandchild in
// the group and of its escapee outside it, until it says ready.
func treeLines(t *testing.T, next func() string) (gc, escapee int) {
	t.Helper()
	for {
		l := next()
		kind, n, _ := strings.Cut(l, " ")
		pid, _ := strconv.Atoi(n)
		switch kind {
		case "ready":
			if gc == 0 || escapee == 0 {
				t.Fatalf("ready before the pids: %d %d", gc, escapee)
			}
			return gc, escapee
		case "grandchild":
			gc = pid
		case "escapee":
			escapee = pid
		case "supervisor":
		default:
			t.Fatalf("unexpected line %q", l)
		}
	}
}

// startTree starts the tree helper and returns it with its descendants'
// pids, which are killed when the test ends if they still run.
func startTree(t *testing.T, cfg proc.Config, env ...string) (c *child, gc, escapee int) {
	t.Helper()
	c = startHelper(t, "tree", cfg, env...)
	gc, escapee = treeLines(t, func() string { return c.next(t) })
	t.Cleanup(func() {
		_ = syscall.Kill(gc, syscall.SIGKILL)
		_ = syscall.Kill(escapee, syscall.SIGKILL)
	})
	if pg, _ := syscall.Getpgid(escapee); pg == c.Pid() {
		t.Fatal("the escapee is still in the group")
	}
	return c, gc, escapee
}

func TestStopKillsGrandchildren(t *testing.T) {
	c := startHelper(t, "spawn-grandchild", proc.Config{KillGrace: time.Hour})
	gc, ready := 0, false
	for gc == 0 || !ready {
		switch l := c.next(t); {
		case l == "ready":
			ready = true // the grandchild now ignores SIGTERM
		case strings.HasPrefix(l, "grandchild "):
			gc, _ = strconv.Atoi(strings.TrimPrefix(l, "grandchild "))
		default:
			t.Fatalf("unexpected line %q", l)
		}
	}

	// The child dies of SIGTERM; the grandchild survives it, so only a kill
	// of the whole tree can end it (KillGrace is an hour).
	c.stop(t, context.Background())
	awaitGone(t, "the grandchild after Stop", gc)
}

// Stop ends the descendants that left the process group too, whether the
// CLI obeys SIGTERM or is killed after the grace period. They hold the
// output open, and WaitDelay is longer than the test waits: Stop returns in
// time only if they died.
func TestStopKillsDescendantsOutsideTheGroup(t *testing.T) {
	for _, tt := range []struct {
		name  string
		env   []string
		grace time.Duration
	}{
		{"graceful", nil, time.Hour},
		{"forced", []string{"PROC_IGNORE_TERM=1"}, 50 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, gc, escapee := startTree(t, proc.Config{KillGrace: tt.grace, WaitDelay: 3 * deadline}, tt.env...)
			c.stop(t, context.Background())
			awaitGone(t, "the descendants after Stop", gc, escapee)
			if code := c.ExitCode(); code != -1 {
				t.Errorf("ExitCode = %d, want -1 (signal)", code)
			}
		})
	}
}

// A CLI that exits by itself leaves nothing behind, and its exit code is
// what the daemon reads.
func TestExitKillsLeftovers(t *testing.T) {
	c, gc, escapee := startTree(t, proc.Config{WaitDelay: 3 * deadline}, "PROC_EXIT=5")
	c.wait(t)
	awaitGone(t, "what the CLI left", gc, escapee)
	if code := c.ExitCode(); code != 5 {
		t.Errorf("ExitCode = %d, want 5", code)
	}
}

// WaitDelay still bounds Stop when a process outside the tree holds the
// output: here the test itself, through /proc/<pid>/fd/1.
func TestStopWithOutputHeldOutsideTheTree(t *testing.T) {
	c := startHelper(t, "pid", proc.Config{KillGrace: time.Hour, WaitDelay: 100 * time.Millisecond})
	pid, err := strconv.Atoi(strings.TrimPrefix(c.next(t), "pid "))
	if err != nil {
		t.Fatal(err)
	}
	held, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", pid), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	c.stop(t, context.Background())
	select {
	case <-c.Done():
	default:
		t.Error("Done not closed after Stop returned")
	}
}

func TestStartFailures(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want error
	}{
		{"/nonexistent/cli", fs.ErrNotExist},
		{notExec, fs.ErrPermission},
		{"no-such-cli-on-path", exec.ErrNotFound},
	} {
		p, err := proc.Start(proc.Config{Path: tt.path})
		if err == nil {
			_ = p.Stop(context.Background())
			t.Errorf("Start(%s) succeeded", tt.path)
			continue
		}
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("Start(%s) = %v, want %v", tt.path, err, tt.want)
		}
	}
}

var marked = proctest.Marked

// The point of the supervisor: a daemon killed with SIGKILL runs no code,
// and nothing it started, at any depth, may outlive it. The daemon is a
// separate process (this binary, as the "daemon" helper) that runs the tree
// helper through proc; every process of it carries a marker in its
// environment, so that the test finds them wherever they were reparented.
func TestDaemonKilledTakesTheTreeDown(t *testing.T) {
	mark := "PROC_TREE_MARK=" + rand.Text()
	daemon := exec.Command(os.Args[0])
	daemon.Env = append(os.Environ(), "PROC_HELPER=daemon", mark, "GORACE=atexit_sleep_ms=0")
	out, err := daemon.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	daemon.Stderr = os.Stderr
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, p := range marked(mark) { // only after a failure
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the daemon ended early")
			}
			return l
		case <-time.After(deadline):
			t.Fatal("timed out waiting for a line")
			return ""
		}
	}
	gc, escapee := treeLines(t, next)

	// daemon, (supervisor,) CLI, grandchild, escapee: the marker finds them.
	tree := marked(mark)
	for _, p := range []int{daemon.Process.Pid, gc, escapee} {
		if !slices.Contains(tree, p) {
			t.Fatalf("process %d is not among the marked %v", p, tree)
		}
	}
	if len(tree) < 4 {
		t.Fatalf("marked processes %v, want at least 4", tree)
	}

	if err := daemon.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = daemon.Wait()
	for range lines { // the daemon's end of the pipe is closed now
	}
	awaitGone(t, "the daemon's tree after its SIGKILL", tree...)
}
