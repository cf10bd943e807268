package adaptertest

import (
	"context"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

// DefaultTimeout bounds every wait when the Harness names none: real CLIs
// retry a failing API for minutes, so nothing may wait unbounded.
const DefaultTimeout = 90 * time.Second

// Harness is what an adapter's package supplies to Run.
type Harness struct {
	// New returns a fresh adapter for one subtest: its own stored
	// sessions, its own fake model API, its own workspace.
	New func(t *testing.T) Env
	// Missing returns an adapter whose CLI is not installed, for Detect;
	// nil skips that check.
	Missing func(t *testing.T) runtimes.Adapter
	// Text is a prompt the CLI answers with a text turn.
	Text string
	// Slow is a prompt the CLI answers with text streamed slowly: its first
	// delta a second or more before the turn ends, so that calls made after
	// it land during the turn.
	Slow string
	// Permission is a prompt whose turn runs a command that needs the
	// user's permission in the default mode; "" when the runtime never asks.
	Permission string
	// Question is a prompt whose turn asks the user a question with
	// options, in QuestionMode; "" when the runtime never asks.
	Question     string
	QuestionMode rpc.PermissionMode
	// Timeout bounds every wait (DefaultTimeout when zero).
	Timeout time.Duration
}

// Env is one subtest's adapter.
type Env struct {
	Adapter runtimes.Adapter
	// Dir is a workspace: a canonical directory the CLI may run in.
	Dir string
	// Mark is an environment entry ("NAME=value") that every process the
	// adapter starts carries, so that proctest.Marked finds whatever is
	// left of them, at any depth; "" skips the process checks.
	Mark string
}

// Run checks a's conformance to the runtimes.Adapter contract, one subtest
// per rule.
func Run(t *testing.T, h Harness) {
	if h.Timeout <= 0 {
		h.Timeout = DefaultTimeout
	}
	if h.New == nil || h.Text == "" || h.Slow == "" {
		t.Fatal("adaptertest: the Harness needs New, Text and Slow")
	}
	c := &suite{h: h}
	t.Run("Info", c.info)
	t.Run("Detect", c.detect)
	t.Run("PermissionModes", c.permissionModes)
	t.Run("NewSessionID", c.newSessionID)
	t.Run("ResumeUnknown", c.resumeUnknown)
	t.Run("Turns", c.turns)
	t.Run("Busy", c.busy)
	t.Run("CloseDuringTurn", c.closeDuringTurn)
	t.Run("Permission", c.permission)
	t.Run("Question", c.question)
}

type suite struct{ h Harness }

// env makes the subtest's adapter and checks, when it ends, that none of
// its processes is left (after the sessions' own cleanups have closed them).
func (c *suite) env(t *testing.T) Env {
	t.Helper()
	e := c.h.New(t)
	if e.Adapter == nil || e.Dir == "" {
		t.Fatal("adaptertest: Harness.New returned no adapter or no workspace")
	}
	t.Cleanup(func() {
		if left := leftProcesses(e.Mark); len(left) > 0 {
			t.Errorf("processes left when the test ended: %v", left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return e
}

// leftProcesses lists the running processes carrying mark, but this one.
func leftProcesses(mark string) []int {
	if mark == "" {
		return nil
	}
	return slices.DeleteFunc(proctest.Marked(mark), func(pid int) bool { return pid == os.Getpid() })
}

func (c *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), c.h.Timeout)
	t.Cleanup(cancel)
	return ctx
}
