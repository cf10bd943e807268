package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cdevd/cdevd/contracttests"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
)

// A CLI path or a PATH entry that is relative names a file in the directory
// cdevd starts in, never in the session's: a workspace that ships bin/claude,
// or a node for the CLIs' #!/usr/bin/env node, must not run when a session
// starts there. The CLI cdevd found where it started runs instead.
func TestWorkspaceProgramsNeverRun(t *testing.T) {
	real, err := filepath.Abs(claudetest.Bin(t))
	if err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran") // what the workspace's programs write
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	planted := "#!/bin/sh\necho \"$0\" >> '" + ran + "'\nexit 1\n"
	writeScript(t, filepath.Join(ws, "bin", "claude"), planted)
	writeScript(t, filepath.Join(ws, "nodebin", "node"), planted) // for PATH=nodebin:…
	writeScript(t, filepath.Join(ws, "node"), planted)            // for an empty PATH entry

	// Where cdevd starts: bin/claude is a script run by the interpreter
	// PATH finds, as the Node CLIs are; the interpreter runs the real CLI.
	start, interp := t.TempDir(), t.TempDir()
	writeScript(t, filepath.Join(start, "bin", "claude"), "#!/usr/bin/env node\n")
	writeScript(t, filepath.Join(interp, "node"), "#!/bin/sh\nshift\nexec '"+real+"' \"$@\"\n")

	for _, c := range []struct{ name, claudeBin, path string }{
		{"CLAUDE_BIN=bin/claude", "bin/claude", interp + ":" + os.Getenv("PATH")},
		{"relative PATH entries", filepath.Join(start, "bin", "claude"), "nodebin::" + interp + ":" + os.Getenv("PATH")},
	} {
		t.Run(c.name, func(t *testing.T) {
			_ = os.Remove(ran)
			fake := fakeanthropic.New(t)
			env := slices.DeleteFunc(claudetest.Env(t, fake.URL()), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
			env = append(env, "PATH="+c.path, "CLAUDE_BIN="+c.claudeBin, "CODEX_BIN=/nonexistent/codex", "GEMINI_BIN=/nonexistent/gemini",
				"CDEVD_HOME="+t.TempDir(), "CDEVD_TOKEN="+envToken, "GORACE=atexit_sleep_ms=0")
			ctx := claudetest.Context(t)
			s := startServeIn(t, start, env, ws)
			cl, init := contracttests.Connect(t, ctx, s.url, envToken)
			i := slices.IndexFunc(init.Capabilities.RuntimeRegistry.Runtimes, func(r rpc.Runtime) bool { return r.ID == claude.ID })
			if i < 0 || !init.Capabilities.RuntimeRegistry.Runtimes[i].Availability.Installed {
				t.Fatalf("claude is not available: %+v", init.Capabilities.RuntimeRegistry.Runtimes)
			}
			var list rpc.WorkspaceListResult
			cl.MustCall(ctx, rpc.MethodWorkspaceList, rpc.WorkspaceListParams{}, &list)
			var sent rpc.SessionSendResult
			cl.MustCall(ctx, rpc.MethodSessionSend, rpc.SessionSendParams{WorkspaceID: list.Workspaces[0].ID, Mode: rpc.SendNew,
				AgentType: claude.ID, Prompt: "hello", PermissionMode: rpc.PermissionBypass}, &sent)
			// The turn ends, one way or the other.
			ended, err := cl.Await(ctx, func(n contracttests.Notification) bool {
				return n.Header().SessionID == sent.SessionID &&
					slices.Contains([]string{rpc.EventTurnCompleted, rpc.EventError, rpc.EventSessionEnd}, n.Type())
			})
			if data, err := os.ReadFile(ran); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the workspace's program ran: %q (%v)", data, err)
			}
			if err != nil || ended.Type() != rpc.EventTurnCompleted {
				t.Fatalf("the real CLI did not complete the turn: %v %v", ended, err)
			}
			s.end(t, syscall.SIGTERM)
		})
	}
}

func writeScript(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}
