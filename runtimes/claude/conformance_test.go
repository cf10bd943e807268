package claude

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/testdoubles/fakeanthropic"
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
			fake := fakeanthropic.New(t)
			fake.Respond(conformanceReply)
			mark := fmt.Sprintf("CDEVD_CONFORMANCE_MARK=%s-%d", t.Name(), time.Now().UnixNano())
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			a := New(Config{
				Bin:       claudetest.Bin(t),
				Env:       append(claudetest.Env(t, fake.URL()), mark),
				KillGrace: 2 * time.Second,
				Logger:    zaptest.NewLogger(t),
			})
			t.Cleanup(func() { a.Transcripts().(io.Closer).Close() }) // its history's folder watch
			return adaptertest.Env{Adapter: a, Dir: dir, Mark: mark}
		},
		Missing: func(t *testing.T) runtimes.Adapter {
			return New(Config{Bin: filepath.Join(t.TempDir(), "missing"), Env: []string{}})
		},
		Text:       "hello",
		Slow:       conformanceSlow,
		Permission: conformancePermission,
		Question:   conformanceQuestion,
		Timeout:    claudetest.Timeout,
	})
}

// conformanceReply answers the suite's prompts: a slow text, a Bash call
// that the default mode asks about, a question; anything else is echoed.
// Tool calls are made only on requests that offer the tool (Claude Code
// also makes side requests of its own).
func conformanceReply(r fakeanthropic.Request) fakeanthropic.Reply {
	if res, ok := r.ToolResult(); ok {
		return fakeanthropic.Text("tool said: " + res.ResultText())
	}
	switch r.LastUserText() {
	case conformanceSlow:
		return fakeanthropic.Slow("one two three four five six seven eight", 250*time.Millisecond)
	case conformancePermission:
		if r.HasTool("Bash") {
			return fakeanthropic.UseTool("Bash", map[string]string{"command": "touch conformance.txt", "description": "Touch a file"})
		}
	case conformanceQuestion:
		if r.HasTool(askUserQuestion) {
			return fakeanthropic.UseTool(askUserQuestion, map[string]any{"questions": []any{map[string]any{
				"question": "Which color?", "header": "Color", "multiSelect": false,
				"options": []any{
					map[string]string{"label": "red", "description": "warm"},
					map[string]string{"label": "blue", "description": "cold"},
				},
			}}})
		}
	}
	return fakeanthropic.Echo(r)
}
