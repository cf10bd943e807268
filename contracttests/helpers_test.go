package contracttests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// startSession starts a scripted session in w and returns its id, which
// must be final and usable at once.
func startSession(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace) string {
	t.Helper()
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scripted.ID}, &res)
	if res.SessionID == "" || res.Status != rpc.StartStarted || res.WorkspaceID != w.ID || res.AgentType != scripted.ID {
		t.Fatalf("session/start = %+v", res)
	}
	return res.SessionID
}

// send starts a turn.
func send(t *testing.T, ctx context.Context, c *Client, id, prompt string) {
	t.Helper()
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: prompt, AgentType: scripted.ID}, &res)
	if res.Status != "sent" || res.SessionID != id || res.AgentType != scripted.ID {
		t.Fatalf("session/send = %+v", res)
	}
}

// await waits for the next event of type typ for session id.
func await(t *testing.T, ctx context.Context, c *Client, typ, id string) Notification {
	t.Helper()
	n, err := c.Await(ctx, Event(typ, id))
	if err != nil {
		t.Fatalf("awaiting %s: %v", typ, err)
	}
	return n
}

// awaitSeq waits until c has received session id's event number seq.
func awaitSeq(t *testing.T, ctx context.Context, c *Client, id string, seq int64) {
	t.Helper()
	if err := c.Until(ctx, func(ns []Notification) bool {
		return slices.ContainsFunc(ns, func(n Notification) bool {
			h := n.Header()
			return h.SessionID == id && h.Seq == seq
		})
	}); err != nil {
		t.Fatalf("awaiting event %d of %s: %v", seq, id, err)
	}
}

func state(t *testing.T, ctx context.Context, c *Client, id string) rpc.SessionStateResult {
	t.Helper()
	var st rpc.SessionStateResult
	c.MustCall(ctx, rpc.MethodSessionState, rpc.SessionStateParams{SessionID: id}, &st)
	return st
}

// isTerminal reports whether n ends a turn.
func isTerminal(n Notification) bool {
	switch n.Type() {
	case rpc.EventTurnCompleted, rpc.EventError, rpc.EventSessionStopped:
		return true
	}
	return false
}

// types lists the event types of ns.
func types(ns []Notification) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Type()
	}
	return out
}

// checkSeqs fails unless ns are numbered first, first+1, ... with no gap
// and no duplicate, all in epoch.
func checkSeqs(t *testing.T, ns []Notification, first int64, epoch string) {
	t.Helper()
	for i, n := range ns {
		h := n.Header()
		if h.Seq != first+int64(i) {
			t.Fatalf("event %d is %s with seq %d, want %d (types %v)", i, n.Type(), h.Seq, first+int64(i), types(ns))
		}
		if h.Epoch != epoch {
			t.Fatalf("event %s seq %d has epoch %q, want %q", n.Type(), h.Seq, h.Epoch, epoch)
		}
	}
}

// between returns the events of ns with from <= seq < to.
func between(ns []Notification, from, to int64) []Notification {
	var out []Notification
	for _, n := range ns {
		if s := n.Header().Seq; s >= from && s < to {
			out = append(out, n)
		}
	}
	return out
}

// count returns how many of ns match.
func count(ns []Notification, match func(Notification) bool) int {
	k := 0
	for _, n := range ns {
		if match(n) {
			k++
		}
	}
	return k
}

// children lists the CLIs this test binary started whose working directory
// is dir: the CLIs of the sessions in that workspace. On Linux a CLI is the
// child of its session's supervisor (our child, in "/"), elsewhere ours.
func children(t *testing.T, dir string) []int {
	t.Helper()
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("read /proc: %v", err)
	}
	parents := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			parents[pid] = ppid
		}
	}
	var pids []int
	for pid, ppid := range parents {
		if ppid != self && (parents[ppid] != self || !supervisor(ppid)) {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd")); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// parentOf is the parent of a running process (not a zombie).
func parentOf(pid int) (int, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false // gone meanwhile
	}
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	var state byte
	var ppid int
	if _, err := fmt.Sscanf(string(stat[i+2:]), "%c %d", &state, &ppid); err != nil || state == 'Z' {
		return 0, false
	}
	return ppid, true
}

// supervisor reports whether pid is a session's supervisor (see runtimes/proc).
func supervisor(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return err == nil && bytes.HasPrefix(b, []byte("cdevd-supervisor\x00"))
}

// awaitNoChildren waits until no process of ours runs in dir.
func awaitNoChildren(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		pids := children(t, dir)
		if len(pids) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("processes still running in %s: %v", dir, pids)
		case <-tick.C:
		}
	}
}

// messageEvents decodes the claude_message events among ns.
func messageEvents(t *testing.T, ns []Notification) []rpc.MessageEvent {
	t.Helper()
	var out []rpc.MessageEvent
	for _, n := range ns {
		if n.Type() != rpc.EventMessage {
			continue
		}
		var m rpc.MessageEvent
		if err := n.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// saidLive lists "type: text" for each message with text, in order.
func saidLive(ms []rpc.MessageEvent) []string {
	var out []string
	for _, m := range ms {
		if s := text(m.Message); s != "" {
			out = append(out, string(m.Type)+": "+s)
		}
	}
	return out
}

// saidPaged is saidStored of a page of workspace/session/messages.
func saidPaged(ms []rpc.PagedMessage) []string {
	var out []string
	for _, m := range ms {
		if s := text(m.Message); s != "" {
			out = append(out, string(m.Type)+": "+s)
		}
	}
	return out
}

// saidStored lists "type: text" for each stored message with text.
func saidStored(ms []rpc.Message) []string {
	var out []string
	for _, m := range ms {
		if s := text(m.Message); s != "" {
			out = append(out, string(m.Type)+": "+s)
		}
	}
	return out
}

// pollUntil polls cond until it holds, failing when ctx ends first.
func pollUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

// groupGone reports whether no process of process group pgid is left.
func groupGone(pgid int) bool { return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }
