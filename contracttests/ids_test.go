package contracttests

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/scripted"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// A transcript named like a flag (--permission-mode=bypassPermissions.jsonl)
// must not become a session: history does not list it, and every method
// that takes a session id refuses that id with -32602, for every runtime,
// without starting anything. Resuming it once passed "--resume
// --permission-mode=bypassPermissions" to the CLI.
func TestFlagLikeSessionIDsAreRefused(t *testing.T) {
	fake := fakeanthropic.New(t)
	cl := claude.New(claude.Config{Bin: claudetest.Bin(t), Env: claudetest.Env(t, fake.URL()), KillGrace: 2 * time.Second})
	var sc scripted.Config
	e := startEnv(t, func(dc *daemon.Config, s *scripted.Config) {
		dc.Adapters = append(dc.Adapters, cl)
		sc = *s
	})
	ctx := testCtx(t)
	c := e.connect(ctx)
	w := e.workspace(ctx, c)

	for _, a := range []runtimes.Adapter{scripted.New(sc), cl} {
		agent := a.Info().ID
		t.Run(agent, func(t *testing.T) {
			dir := folderOf(a.Transcripts())(w.Path)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"--permission-mode=bypassPermissions", "-r", "--", "--help"} {
				if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
				ref := rpc.SessionRefParams{WorkspaceID: w.ID, SessionID: id, AgentType: agent}
				for _, call := range []struct {
					method string
					params any
				}{
					{rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: id, WorkspaceID: w.ID, AgentType: agent, Prompt: "hi"}},
					{rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, SessionID: id, AgentType: agent}},
					{rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, ResumeSessionID: id, AgentType: agent}},
					{rpc.MethodActivate, ref},
					{rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: w.ID, SessionID: id, AgentType: agent}},
					{rpc.MethodWatch, rpc.WatchParams{WorkspaceID: w.ID, SessionID: id, AgentType: agent}},
				} {
					if _, rerr := c.Call(ctx, call.method, call.params); rerr == nil || rerr.Code != rpc.CodeInvalidParams {
						t.Errorf("%s %s: %v, want %d", call.method, id, rerr, rpc.CodeInvalidParams)
					}
				}
			}
			var h rpc.HistoryResult
			c.MustCall(ctx, rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: w.ID, AgentType: agent}, &h)
			if i := slices.IndexFunc(h.Sessions, func(s rpc.HistorySession) bool { return s.SessionID[0] == '-' }); i >= 0 {
				t.Errorf("history lists %q", h.Sessions[i].SessionID)
			}
			if pids := children(t, w.Path); len(pids) != 0 {
				t.Errorf("processes started: %v", pids)
			}
		})
	}
}

// folderOf is where a file-per-session store (Claude's, the fake's) keeps
// a directory's sessions: these tests write such files as a CLI run in a
// terminal would.
func folderOf(t runtimes.Transcripts) func(dir string) string {
	return t.(interface{ Dir(string) string }).Dir
}
