package contracttests

// The Claude rig: cdevd with only the claude runtime against the fake
// Anthropic API, and the steps TestClaudeThroughCdevd takes with it.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// claudeRig is cdevd with only the claude runtime, pointed at a fake API.
type claudeRig struct {
	fake  *fakeanthropic.Server
	bin   string
	env   []string // the CLI's whole environment: its HOME, the fake API, no way out
	url   string
	token string
	addr  string // host:port, for the HTTP API
	home  string // cdevd's state directory
}

func newClaudeRig(t *testing.T) *claudeRig {
	t.Helper()
	if _, _, ok := external(); ok {
		t.Skipf("needs cdevd in process with a fake model API; %s targets an external server", envURL)
	}
	// The fake goes first so that it closes last, after cdevd has ended the CLIs.
	fake := fakeanthropic.New(t)
	bin := claudetest.Bin(t)
	env := claudetest.Env(t, fake.URL())
	home := t.TempDir()
	d := StartDaemon(t, daemon.Config{Home: home, Adapters: []runtimes.Adapter{
		claude.New(claude.Config{Bin: bin, Env: env, KillGrace: 2 * time.Second}),
	}})
	return &claudeRig{fake: fake, bin: bin, env: env, url: d.URL(), token: d.Token(), addr: d.Addr(), home: home}
}

// respond scripts the fake API for the rest of the subtest.
func (r *claudeRig) respond(t *testing.T, f fakeanthropic.Responder) {
	r.fake.Respond(f)
	t.Cleanup(func() { r.fake.Respond(nil) })
}

// lastRequest is the last Messages request the model received.
func (r *claudeRig) lastRequest(t *testing.T) fakeanthropic.Request {
	t.Helper()
	reqs := r.fake.MessageRequests()
	if len(reqs) == 0 {
		t.Fatal("the model received no request")
	}
	return reqs[len(reqs)-1]
}

// lastToolResult is the tool result the model received last.
func (r *claudeRig) lastToolResult(t *testing.T) fakeanthropic.Block {
	t.Helper()
	reqs := r.fake.MessageRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if b, ok := reqs[i].ToolResult(); ok {
			return b
		}
	}
	t.Fatal("the model never received a tool result")
	return fakeanthropic.Block{}
}

// transcripts is where the CLI keeps its transcripts.
func (r *claudeRig) transcripts() string {
	return filepath.Join(claudetest.Home(r.env), ".claude", "projects")
}

// callTool answers a prompt with one call of tool and the call's result with
// text quoting it. Requests that offer no tools (side requests the CLI may
// make) get the echo.
func callTool(tool string, input any) fakeanthropic.Responder {
	return func(req fakeanthropic.Request) fakeanthropic.Reply {
		if res, ok := req.ToolResult(); ok {
			return fakeanthropic.Text("tool said: " + res.ResultText())
		}
		if !req.HasTool(tool) {
			return fakeanthropic.Echo(req)
		}
		return fakeanthropic.UseTool(tool, input)
	}
}

// claudeStart starts a claude session in w and returns its id and the pid
// of the CLI cdevd spawned for it (the one new process in w).
func claudeStart(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace) (string, int) {
	t.Helper()
	before := children(t, w.Path)
	var res rpc.SessionStartResult
	c.MustCall(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: claude.ID}, &res)
	if res.Status != rpc.StartStarted || res.Source != "new" || res.WorkspaceID != w.ID || res.AgentType != claude.ID {
		t.Fatalf("session/start = %+v", res)
	}
	if err := uuid.Validate(res.SessionID); err != nil {
		t.Fatalf("session id %q: %v", res.SessionID, err)
	}
	return res.SessionID, spawnedChild(t, before, w.Path)
}

// spawnedChild is the one process of ours in dir that was not in before.
func spawnedChild(t *testing.T, before []int, dir string) int {
	t.Helper()
	var added []int
	for _, pid := range children(t, dir) {
		if !slices.Contains(before, pid) {
			added = append(added, pid)
		}
	}
	if len(added) != 1 {
		t.Fatalf("new processes in %s: %v (before: %v), want exactly one CLI", dir, added, before)
	}
	return added[0]
}

// claudeSend sends a turn to a claude session.
func claudeSend(t *testing.T, ctx context.Context, c *Client, id, prompt string) {
	t.Helper()
	var res rpc.SessionSendResult
	c.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, Prompt: prompt, AgentType: claude.ID}, &res)
	if res.Status != "sent" || res.SessionID != id || res.AgentType != claude.ID {
		t.Fatalf("session/send = %+v", res)
	}
}

// claudeWatch makes c watch session id from now on and returns the last
// seq before it started.
func claudeWatch(t *testing.T, ctx context.Context, c *Client, w rpc.Workspace, id string) int64 {
	t.Helper()
	var res rpc.WatchResult
	c.MustCall(ctx, rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: claude.ID}, &res)
	if !res.Watching || res.SessionID != id || res.Gap || res.Replayed != 0 {
		t.Fatalf("watch = %+v", res)
	}
	return res.LastSeq
}

// pageMessages pages a session's transcript over the wire.
func pageMessages(t *testing.T, ctx context.Context, c *Client, p rpc.MessagesParams) rpc.MessagesResult {
	t.Helper()
	p.AgentType = claude.ID
	var res rpc.MessagesResult
	c.MustCall(ctx, rpc.MethodMessages, p, &res)
	return res
}

// procArgs is a process's argument list.
func procArgs(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		t.Fatalf("cmdline of %d: %v", pid, err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// bothAsked waits until both clients got the same permission request.
func bothAsked(t *testing.T, ctx context.Context, a, b *Client, id string) rpc.PermissionEvent {
	t.Helper()
	var asked [2]rpc.PermissionEvent
	for i, c := range []*Client{a, b} {
		if err := await(t, ctx, c, rpc.EventPermission, id).Decode(&asked[i]); err != nil {
			t.Fatal(err)
		}
	}
	if asked[0].RequestID == "" || asked[1].RequestID != asked[0].RequestID || asked[1].Seq != asked[0].Seq {
		t.Fatalf("the two clients were asked %+v and %+v", asked[0], asked[1])
	}
	return asked[0]
}

// bothResolved waits until both clients heard that request was decided by clientID.
func bothResolved(t *testing.T, ctx context.Context, a, b *Client, id, request, decision, clientID string) {
	t.Helper()
	for _, c := range []*Client{a, b} {
		var r rpc.PermissionResolvedEvent
		if err := await(t, ctx, c, rpc.EventPermissionResolved, id).Decode(&r); err != nil {
			t.Fatal(err)
		}
		if r.RequestID != request || r.Decision != decision || r.ResolvedBy != clientID {
			t.Errorf("pty_permission_resolved = %+v, want %s %s by %s", r, request, decision, clientID)
		}
	}
}

// messageIDs lists the ids of stored messages.
func messageIDs(ms []rpc.PagedMessage) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.UUID
	}
	return out
}

// runOutside runs one `claude -p` turn in dir as a user would in a
// terminal, with the same home as cdevd's CLIs, and returns its answer.
func (r *claudeRig) runOutside(t *testing.T, ctx context.Context, dir, prompt string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, r.bin, append([]string{"-p", prompt, "--output-format", "json"}, args...)...)
	cmd.Dir, cmd.Env = dir, r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude -p %q: %v: %s", prompt, err, stderr.String())
	}
	var res struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.IsError {
		t.Fatalf("claude -p %q printed %s (%v)", prompt, out, err)
	}
	return res.Result
}
