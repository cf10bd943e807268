package codex

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// The prompts the conformance suite sends; the fake API answers each as
// the suite needs (conformanceReply).
const (
	conformanceSlow       = "conformance: stream slowly"
	conformancePermission = "conformance: run a command"
	conformanceQuestion   = "conformance: ask me"
)

// TestConformance runs the adapter conformance suite on the real CLI.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Harness{
		New: func(t *testing.T) adaptertest.Env {
			api := fakeopenai.New(t)
			api.Respond(conformanceReply)
			mark := fmt.Sprintf("CDEVD_CONFORMANCE_MARK=%s-%d", t.Name(), time.Now().UnixNano())
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			a := New(Config{
				Bin:       codextest.Bin(t),
				Env:       append(codextest.Env(t, api.BaseURL()), mark),
				KillGrace: 5 * time.Second,
				Logger:    zaptest.NewLogger(t),
			})
			t.Cleanup(func() { a.Transcripts().(io.Closer).Close() }) // its history's tree watch
			return adaptertest.Env{Adapter: a, Dir: dir, Mark: mark}
		},
		Missing: func(t *testing.T) runtimes.Adapter {
			return New(Config{Bin: filepath.Join(t.TempDir(), "missing"), Env: []string{}})
		},
		Text:         "hello",
		Slow:         conformanceSlow,
		Permission:   conformancePermission,
		Question:     conformanceQuestion,
		QuestionMode: rpc.PermissionPlan, // Codex asks questions in plan mode only
		Timeout:      codextest.Timeout,
	})
}

// conformanceReply answers the suite's prompts: a slow text, a write
// command that the default mode asks about, a question; anything else is
// echoed.
func conformanceReply(r fakeopenai.Request) fakeopenai.Reply {
	if out, ok := r.CallOutput(); ok {
		return fakeopenai.Text("ran " + out.CallID)
	}
	switch r.LastUserText() {
	case conformanceSlow:
		return fakeopenai.Slow("one two three four five six seven eight", 250*time.Millisecond)
	case conformancePermission:
		return fakeopenai.Exec("touch conformance.txt")
	case conformanceQuestion:
		return fakeopenai.Call("request_user_input", map[string]any{"questions": []map[string]any{{
			"id": "choice", "header": "Choose", "question": "Proceed with the plan?",
			"options": []map[string]string{{"label": "Yes (Recommended)", "description": "Go ahead."},
				{"label": "No", "description": "Stop here."}},
		}}})
	}
	return fakeopenai.Echo(r)
}
