package proc_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cdevd/cdevd/runtimes/proc"
)

func TestStopKillsGrandchildren(t *testing.T) {
	// Orphans are reparented to us instead of to init (which may never reap
	// them here), so the test can reap the grandchild and see it gone.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("PR_SET_CHILD_SUBREAPER: %v", err)
	}
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

	// The child dies of SIGTERM; the grandchild survives it, so only the
	// runner's kill of the whole group can end it (KillGrace is an hour).
	c.stop(t, context.Background())

	// Done implies the grandchild closed its end of the pipe; wait4 then
	// returns as soon as it is a zombie.
	var ws syscall.WaitStatus
	reaped := make(chan error, 1)
	go func() {
		_, err := syscall.Wait4(gc, &ws, 0, nil)
		reaped <- err
	}()
	select {
	case err := <-reaped:
		if err != nil {
			t.Fatalf("wait4(grandchild): %v", err)
		}
	case <-time.After(deadline):
		_ = syscall.Kill(gc, syscall.SIGKILL) // let the waiter return
		<-reaped
		t.Fatal("the grandchild was still running after Stop")
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("grandchild ended with %v, want killed by SIGKILL", ws)
	}
	if err := syscall.Kill(gc, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(grandchild, 0) = %v, want ESRCH", err)
	}
}

func TestStopWithOutputHeldOutsideTheGroup(t *testing.T) {
	// The grandchild is reparented to us when its parent dies, so that the
	// cleanup can reap it.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("PR_SET_CHILD_SUBREAPER: %v", err)
	}
	c := startHelper(t, "spawn-setsid", proc.Config{KillGrace: time.Hour, WaitDelay: 100 * time.Millisecond})
	gc, ready := 0, false
	for gc == 0 || !ready {
		switch l := c.next(t); {
		case l == "ready":
			ready = true
		case strings.HasPrefix(l, "grandchild "):
			gc, _ = strconv.Atoi(strings.TrimPrefix(l, "grandchild "))
		default:
			t.Fatalf("unexpected line %q", l)
		}
	}
	// Outside the group, the grandchild is the test's to end.
	t.Cleanup(func() {
		_ = syscall.Kill(gc, syscall.SIGKILL)
		_, _ = syscall.Wait4(gc, nil, 0, nil)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Stop(ctx) }()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(deadline):
		_ = syscall.Kill(gc, syscall.SIGKILL) // closes the pipe: Stop can return
		<-errc
		t.Fatal("Stop waited for the output a process outside the group held open")
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done not closed after Stop returned")
	}
	// The case under test: the group is gone, the holder of the pipe is not.
	if err := syscall.Kill(gc, 0); err != nil {
		t.Errorf("kill(grandchild, 0) = %v; want it still running", err)
	}
}
