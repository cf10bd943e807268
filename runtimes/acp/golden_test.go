package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
)

// Goldens of what the Gemini CLI sends over ACP. For each of geminiCases,
// testdata/gemini/<case>.jsonl holds the stdout lines of a real
// `gemini --acp` (the pinned version, against testdoubles/fakegemini), one
// line per line, run-specific values replaced by placeholders. Only
//
//	go test -run TestCaptureGemini -capture ./runtimes/acp/
//
// runs the CLI and rewrites them. TestGeminiGolden replays each capture
// through a session without a process, acting as the case's client did,
// and compares the events (and what the session answered the agent) with
// <case>.golden; -update rewrites those.

var (
	captureGemini = flag.Bool("capture", false, "run the real gemini --acp for each golden case and rewrite testdata/gemini/<case>.jsonl")
	update        = flag.Bool("update", false, "rewrite testdata/gemini/<case>.golden from the replays")
)

// Placeholders for the run-specific values of a capture.
const (
	goldenDir   = "testdata/gemini"
	wsMark      = "/home/user/project"
	homeMark    = "/home/user"
	tmpMark     = "/home/user/.cache/tmp"
	sessionMark = "5e551090-0000-4000-8000-000000000001"
)

// trigger is the event at which a case's client interrupts the turn.
type trigger int

const (
	never        trigger = iota
	atFirstDelta         // cancel mid-stream
	atPrompt             // cancel while a permission request is open
)

// geminiCase is one captured session: the model's scripted replies, and
// what the client does.
type geminiCase struct {
	name string
	// replies are the fake API's answers, one per model request in order
	// (the last repeats); ws is the capture's workspace.
	replies   func(ws string) []fakegemini.Reply
	prompt    string
	files     map[string]string // written into the workspace before the capture
	yolo      bool              // permission mode bypassPermissions (session/set_mode yolo)
	answer    runtimes.Decision // the answer to every permission request
	interrupt trigger
	// resume: the capture is a session/load, in a new process, of a
	// session that ran the case's turn in an earlier one; the load's
	// replay is history, so no turn runs in it.
	resume bool
	// ends is how the replayed turn must end: "TurnCompleted end_turn",
	// "TurnFailed <code>", or "" for no turn.
	ends string
}

func replies(rs ...fakegemini.Reply) func(string) []fakegemini.Reply {
	return func(string) []fakegemini.Reply { return rs }
}

var geminiCases = []geminiCase{
	{name: "text", prompt: "hello", replies: replies(fakegemini.Text("Hello from fake Gemini.")),
		ends: "TurnCompleted end_turn"},
	{name: "thought", prompt: "think first",
		replies: replies(fakegemini.Think("**Planning**\nPondering the request.", "Answer.")), ends: "TurnCompleted end_turn"},
	{name: "thought-no-subject", prompt: "think first",
		replies: replies(fakegemini.Think("Pondering the request.", "Answer.")), ends: "TurnCompleted end_turn"},
	// Gemini runs commands it knows as read-only (echo, ls, …) without
	// asking: the commands that must ask write.
	{name: "permission-allow", prompt: "run it", answer: runtimes.Allow,
		replies: replies(fakegemini.Shell("touch made.txt && ls"), fakegemini.Text("Done (tool ran).")), ends: "TurnCompleted end_turn"},
	{name: "permission-reject", prompt: "run it", answer: runtimes.Deny,
		replies: replies(fakegemini.Shell("touch denied.txt"), fakegemini.Text("Understood, not run.")), ends: "TurnCompleted end_turn"},
	// After allow-always, the same kind of call runs unasked: a tool_call
	// in_progress, then its tool_call_update.
	{name: "permission-always", prompt: "run two", answer: runtimes.AllowAlways,
		replies: replies(fakegemini.Shell("touch one.txt"), fakegemini.Shell("touch two.txt"), fakegemini.Text("Both ran.")),
		ends:    "TurnCompleted end_turn"},
	{name: "write-file", prompt: "write it", answer: runtimes.Allow, ends: "TurnCompleted end_turn",
		replies: func(ws string) []fakegemini.Reply {
			return []fakegemini.Reply{
				fakegemini.Call("write_file", map[string]string{"file_path": filepath.Join(ws, "edited.txt"), "content": "hello from gemini\n"}),
				fakegemini.Text("Written."),
			}
		}},
	// A read tool runs unasked; what it shows is the update's content (a
	// partial read says which lines; a whole one shows nothing).
	{name: "tool-output", prompt: "read it", files: map[string]string{"notes.txt": "first line\nsecond line\n"},
		ends: "TurnCompleted end_turn", replies: func(ws string) []fakegemini.Reply {
			return []fakegemini.Reply{fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(ws, "notes.txt"), "start_line": 1, "end_line": 1}),
				fakegemini.Text("Read.")}
		}},
	// A tool that fails: tool_call_update failed, its error as content.
	{name: "tool-failed", prompt: "read it", ends: "TurnCompleted end_turn", replies: func(ws string) []fakegemini.Reply {
		return []fakegemini.Reply{fakegemini.Call("read_file", map[string]string{"file_path": filepath.Join(ws, "missing.txt")}), fakegemini.Text("No such file.")}
	}},
	{name: "yolo", prompt: "run it", yolo: true,
		replies: replies(fakegemini.Shell("touch yolo.txt"), fakegemini.Text("Ran it.")), ends: "TurnCompleted end_turn"},
	{name: "cancel", prompt: "count slowly", interrupt: atFirstDelta,
		replies: replies(fakegemini.Slow("tick1 tick2 tick3 tick4 tick5", time.Second)), ends: "TurnFailed " + runtimes.CodeInterrupted},
	{name: "cancel-permission", prompt: "run it", interrupt: atPrompt,
		replies: replies(fakegemini.Shell("touch never.txt"), fakegemini.Text("Not run.")), ends: "TurnFailed " + runtimes.CodeInterrupted},
	{name: "api-error", prompt: "hi", replies: replies(fakegemini.Fail(400, "INVALID_ARGUMENT", "fake says no")),
		ends: "TurnFailed " + runtimes.CodeRefused},
	{name: "api-401", prompt: "hi", replies: replies(fakegemini.Fail(401, "UNAUTHENTICATED", "fake says 401")),
		ends: "TurnFailed " + runtimes.CodeAuthRequired},
	{name: "api-429", prompt: "hi", replies: replies(fakegemini.Fail(429, "RESOURCE_EXHAUSTED", "fake says 429")),
		ends: "TurnFailed " + runtimes.CodeRateLimited},
	{name: "api-500", prompt: "hi", replies: replies(fakegemini.Fail(500, "INTERNAL", "fake says 500")),
		ends: "TurnFailed " + runtimes.CodeServerError},
	// Gemini 0.61.0 reports a closed port as a 500 whose message says
	// "fetch failed", after silent retries (about 4 minutes with its
	// default of 10 attempts).
	{name: "api-refused", prompt: "hi", replies: nil, ends: "TurnFailed " + runtimes.CodeUnreachable},
	{name: "load", prompt: "run it", answer: runtimes.Allow, resume: true,
		replies: replies(fakegemini.Shell("echo from the first process"), fakegemini.Text("Done (tool ran).")), ends: ""},
}

// react is what the case's client does on ev: the permission answer to
// send, or to interrupt. The capture and the replay both act through it.
func (c geminiCase) react(ev runtimes.Event, interrupted bool) (answer *runtimes.Answer, interrupt bool) {
	switch ev := ev.(type) {
	case runtimes.PromptRequested:
		if c.interrupt == atPrompt {
			return nil, !interrupted
		}
		if ev.Permission != nil && c.answer != "" {
			return &runtimes.Answer{Decision: c.answer}, false
		}
	case runtimes.MessageDelta:
		return nil, c.interrupt == atFirstDelta && !interrupted
	}
	return nil, false
}

// TestGeminiGolden replays every capture and compares the events with its
// golden file.
func TestGeminiGolden(t *testing.T) {
	for _, c := range geminiCases {
		t.Run(c.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(goldenDir, c.name+".jsonl"))
			if err != nil {
				t.Fatalf("%v: run go test -run TestCaptureGemini -capture", err)
			}
			entries, evs := replay(t, c, in)
			if ends := turnEnd(evs); ends != c.ends {
				t.Errorf("the turn ended %q, want %q", ends, c.ends)
			}
			if open := openToolCalls(evs); len(open) > 0 {
				t.Errorf("tool calls without a result when the turn ended: %v", open)
			}
			got := []byte(strings.Join(entries, "\n") + "\n")
			golden := filepath.Join(goldenDir, c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v: run with -update", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs; run with -update and review the diff:\n%s", golden, got)
			}
		})
	}
}

// replay feeds a capture's lines to a session without a process, as its
// peer would: agent requests to onRequest, notifications to
// onNotification. The client's side is acted out as in the capture: the
// turn begins once the handshake's replies are in (Start has returned and
// Send runs), the reply after that is the prompt's and ends the turn as
// awaitTurn does, and the case's react answers prompts and interrupts.
// It returns the golden entries, one JSON line each, and the events.
func replay(t *testing.T, c geminiCase, lines []byte) (entries []string, evs []runtimes.Event) {
	t.Helper()
	var out []any
	em := kit.NewInlineEmitter(func(ev runtimes.Event) {
		evs = append(evs, ev)
		out = append(out, ev)
	}, nil)
	s := New(Spec{ID: "gemini", DisplayName: "Gemini CLI"}).newSession(wsMark, em)
	s.id = sessionMark
	s.reply = func(r *stdiorpc.Request, result any) error {
		out = append(out, sent{Reply: r.ID, Result: result})
		return nil
	}
	handshake := 2 // initialize, session/new or session/load
	if c.yolo {
		handshake++ // session/set_mode
	}
	if c.resume {
		s.loading = true // the whole capture is the load and its replay
	}
	replies, interrupted, reacted := 0, false, 0
	for i, line := range bytes.Split(bytes.TrimSuffix(lines, []byte("\n")), []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *stdiorpc.Error `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			s.onRequest(&stdiorpc.Request{ID: m.ID, Method: m.Method, Params: m.Params})
		case m.Method != "":
			s.onNotification(m.Method, m.Params)
		default: // a reply to one of cdevd's requests
			replies++
			switch {
			case s.turn.Busy():
				var res sdk.PromptResponse
				var err error
				if m.Error != nil {
					err = m.Error
				} else if err := json.Unmarshal(m.Result, &res); err != nil {
					t.Fatalf("line %d: prompt result: %v", i+1, err)
				}
				s.endTurn(res, err)
			case replies == handshake && !c.resume:
				if err := s.beginTurn(); err != nil {
					t.Fatal(err)
				}
			}
		}
		for ; reacted < len(evs); reacted++ {
			answer, interrupt := c.react(evs[reacted], interrupted)
			switch {
			case interrupt:
				// Interrupt without the wire: session/cancel, then the
				// open requests answered cancelled.
				interrupted = true
				out = append(out, sent{Notify: "session/cancel"})
				if running, err := s.turn.Interrupting(); err != nil || !running {
					t.Fatalf("line %d: interrupt with no turn running (%v)", i+1, err)
				}
				s.cancelPrompts()
			case answer != nil:
				id := evs[reacted].(runtimes.PromptRequested).RequestID
				if err := s.Respond(context.Background(), id, *answer); err != nil {
					t.Fatalf("line %d: answer %s: %v", i+1, id, err)
				}
			}
		}
	}
	s.turn.Exit(0, "replay over", "")
	<-em.Done()

	ids := map[string]string{sessionMark: sessionMark}
	for _, o := range out {
		if ev, ok := o.(runtimes.Event); ok {
			if m, ok := ev.(runtimes.MessageCompleted); ok {
				m.Message.Timestamp = "(time)" // the live clock
				ev = m
			}
			o = map[string]any{"event": strings.TrimPrefix(fmt.Sprintf("%T", ev), "runtimes."), "data": ev}
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, string(stableIDs(b, ids)))
	}
	return entries, evs
}

// turnEnd is how the turn among evs ended: "TurnCompleted <stop reason>",
// "TurnFailed <code>", or "" if none ended.
func turnEnd(evs []runtimes.Event) string {
	for _, ev := range evs {
		switch ev := ev.(type) {
		case runtimes.TurnCompleted:
			return "TurnCompleted " + ev.StopReason
		case runtimes.TurnFailed:
			return "TurnFailed " + ev.Code
		}
	}
	return ""
}

// openToolCalls are the tool_use blocks among evs that no tool_result
// answered before the turn ended: clients would show them running.
func openToolCalls(evs []runtimes.Event) []string {
	open := map[string]bool{}
	for _, ev := range evs {
		switch ev := ev.(type) {
		case runtimes.MessageCompleted:
			for _, b := range ev.Message.Message.Content {
				switch b.Type {
				case rpc.BlockToolUse:
					open[b.ID] = true
				case rpc.BlockToolResult:
					delete(open, b.ToolUseID)
				}
			}
		case runtimes.TurnCompleted, runtimes.TurnFailed:
			var ids []string
			for id := range open {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			return ids
		}
	}
	return nil
}

// sent is what the session sent the agent: a reply to one of its
// requests, or a notification.
type sent struct {
	Reply  json.RawMessage `json:"reply,omitempty"`
	Result any             `json:"result,omitempty"`
	Notify string          `json:"notify,omitempty"`
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// stableIDs replaces the ids the session makes up (random UUIDs) with
// id-1, id-2, … in order of appearance.
func stableIDs(b []byte, ids map[string]string) []byte {
	return uuidRE.ReplaceAllFunc(b, func(u []byte) []byte {
		id, ok := ids[string(u)]
		if !ok {
			id = fmt.Sprintf("id-%d", len(ids))
			ids[string(u)] = id
		}
		return []byte(id)
	})
}

// A refused tool call gets one result: cdevd's own when the agent sends
// no update for it (Gemini), never a second when an agent does.
func TestRefusedToolCallResultOnce(t *testing.T) {
	c := geminiCases[0]
	for _, gc := range geminiCases {
		if gc.name == "permission-reject" {
			c = gc
		}
	}
	in, err := os.ReadFile(filepath.Join(goldenDir, c.name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	tool := ""
	for _, line := range bytes.Split(bytes.TrimSpace(in), []byte("\n")) {
		lines = append(lines, line)
		var m struct {
			Method string `json:"method"`
			Params struct {
				ToolCall struct {
					ToolCallID string `json:"toolCallId"`
				} `json:"toolCall"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == "session/request_permission" {
			tool = m.Params.ToolCall.ToolCallID
			// What an agent that reports refusals would send next.
			lines = append(lines, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`+sessionMark+
				`","update":{"sessionUpdate":"tool_call_update","toolCallId":"`+tool+`","status":"failed","content":[{"type":"content","content":{"type":"text","text":"rejected"}}]}}}`))
		}
	}
	if tool == "" {
		t.Fatalf("%s has no permission request", c.name)
	}
	_, evs := replay(t, c, append(bytes.Join(lines, []byte("\n")), '\n'))
	var results []string
	for _, ev := range evs {
		if m, ok := ev.(runtimes.MessageCompleted); ok {
			for _, b := range m.Message.Message.Content {
				if b.Type == rpc.BlockToolResult && b.ToolUseID == tool {
					results = append(results, string(b.Content))
				}
			}
		}
	}
	if len(results) != 1 || !strings.Contains(results[0], "rejected this tool call") {
		t.Fatalf("results of the refused call: %v", results)
	}
}
