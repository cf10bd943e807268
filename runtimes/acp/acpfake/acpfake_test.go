package acpfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
)

func assertEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

// A text turn through the SDK: the handshake Gemini gives, two echo chunks
// that have all arrived when the reply does, and usage in _meta.quota.
func TestEchoTurn(t *testing.T) {
	a := startSDK(t, Options{})
	init, s := a.session(t, t.TempDir())
	assertEqual(t, "protocol version", int(init.ProtocolVersion), 1)
	assertEqual(t, "agent info", *init.AgentInfo, sdk.Implementation{Name: "acpfake", Title: ptr("acpfake"), Version: "1.0.0"})
	if init.AgentCapabilities.LoadSession {
		t.Error("loadSession advertised without Options.LoadSession")
	}
	if _, err := uuid.Parse(string(s.SessionId)); err != nil {
		t.Errorf("session id %q is not a uuid", s.SessionId)
	}
	if s.Modes == nil || s.Modes.CurrentModeId != "default" || len(s.Modes.AvailableModes) != 2 ||
		s.Modes.AvailableModes[1].Id != "yolo" {
		t.Errorf("modes: %+v", s.Modes)
	}

	r, err := a.prompt(s.SessionId, "hello")
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "stop reason", r.StopReason, sdk.StopReasonEndTurn)
	assertEqual(t, "updates", describeUpdates(a.c.take()), []string{"agent echo: ", "agent hello"})
	b, _ := json.Marshal(r.Meta)
	assertEqual(t, "_meta", string(b), `{"quota":{"token_count":{"input_tokens":5,"output_tokens":11}}}`)
}

func ptr[T any](v T) *T { return &v }

func TestThink(t *testing.T) {
	a := startSDK(t, Options{Name: "gemini-ish", Version: "0.61.0"})
	init, s := a.session(t, t.TempDir())
	assertEqual(t, "agent info", *init.AgentInfo, sdk.Implementation{Name: "gemini-ish", Title: ptr("gemini-ish"), Version: "0.61.0"})
	if _, err := a.prompt(s.SessionId, "THINK about it"); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "updates", describeUpdates(a.c.take()), []string{"thought **Subject**\nabout it", "agent thought about it"})
}

// TOOL asks with Gemini's three options; the answer decides what runs, and
// "allow always" stops the asking for the rest of the session.
func TestPermission(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer sdk.RequestPermissionResponse
		want   []string // updates of the first TOOL turn
		again  bool     // the second TOOL asks again
	}{
		{"once", selected("proceed_once"), []string{"tool_call_update completed ran touch x", "agent done"}, true},
		{"always", selected("proceed_always"), []string{"tool_call_update completed ran touch x", "agent done"}, false},
		{"reject", selected("cancel"), []string{"agent denied"}, true},
		{"cancelled", cancelledOutcome(), []string{"agent denied"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := startSDK(t, Options{})
			_, s := a.session(t, t.TempDir())
			done := a.promptAsync(s.SessionId, "TOOL touch x")
			req := a.awaitAsked(t)
			var opts []string
			for _, o := range req.Options {
				opts = append(opts, string(o.OptionId)+"/"+string(o.Kind))
			}
			assertEqual(t, "options", opts, []string{"proceed_always/allow_always", "proceed_once/allow_once", "cancel/reject_once"})
			call := req.ToolCall
			if call.Title == nil || *call.Title != "touch x" || call.Kind == nil || *call.Kind != sdk.ToolKindExecute ||
				call.Status == nil || *call.Status != sdk.ToolCallStatusPending || len(call.Content) != 1 ||
				call.Content[0].Content == nil || blockText(call.Content[0].Content.Content) != "(run cmd)" {
				b, _ := json.Marshal(call)
				t.Errorf("toolCall: %s", b)
			}
			a.c.answer <- c.answer
			r := a.awaitResult(t, done)
			if r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("turn: %v %q", r.err, r.resp.StopReason)
			}
			assertEqual(t, "updates", describeUpdates(a.c.take()), c.want)

			// The second TOOL of the session.
			done = a.promptAsync(s.SessionId, "TOOL touch y")
			if c.again {
				a.awaitAsked(t)
				a.c.answer <- selected("proceed_once")
				a.awaitResult(t, done)
				assertEqual(t, "second updates", describeUpdates(a.c.take()), []string{"tool_call_update completed ran touch y", "agent done"})
				return
			}
			a.awaitResult(t, done)
			assertEqual(t, "second updates", describeUpdates(a.c.take()),
				[]string{"tool_call execute in_progress touch y", "tool_call_update completed ran touch y", "agent done"})
			if len(a.c.asked) > 0 {
				t.Error("asked again after allow always")
			}
		})
	}
}

// EDIT asks with a diff and writes the file in the session's cwd only when
// allowed.
func TestEdit(t *testing.T) {
	for _, allow := range []bool{true, false} {
		a := startSDK(t, Options{})
		dir := t.TempDir()
		_, s := a.session(t, dir)
		done := a.promptAsync(s.SessionId, "EDIT sub.txt")
		req := a.awaitAsked(t)
		path := filepath.Join(dir, "sub.txt")
		call := req.ToolCall
		if call.Title == nil || *call.Title != "Writing to sub.txt" || call.Kind == nil || *call.Kind != sdk.ToolKindEdit ||
			len(call.Content) != 1 || call.Content[0].Diff == nil || call.Content[0].Diff.Path != path ||
			call.Content[0].Diff.NewText != "hello\n" || call.Content[0].Diff.OldText == nil || *call.Content[0].Diff.OldText != "" ||
			len(call.Locations) != 1 || call.Locations[0].Path != path {
			b, _ := json.Marshal(call)
			t.Errorf("toolCall: %s", b)
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatal("written before it was allowed")
		}
		answer := selected("cancel")
		if allow {
			answer = selected("proceed_once")
		}
		a.c.answer <- answer
		a.awaitResult(t, done)
		b, err := os.ReadFile(path)
		switch {
		case allow && (err != nil || string(b) != "hello\n"):
			t.Errorf("allowed edit: %q, %v", b, err)
		case !allow && err == nil:
			t.Error("a rejected edit wrote the file")
		}
	}
}

// In yolo mode nothing is asked: tool_call in_progress announces the call.
func TestYolo(t *testing.T) {
	a := startSDK(t, Options{})
	_, s := a.session(t, t.TempDir())
	if _, err := a.conn.SetSessionMode(a.ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.prompt(s.SessionId, "TOOL ls"); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "updates", describeUpdates(a.c.take()),
		[]string{"tool_call execute in_progress ls", "tool_call_update completed ran ls", "agent done"})
	_, err := a.conn.SetSessionMode(a.ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "plan"})
	assertCode(t, err, -32602)
	_, err = a.conn.SetSessionMode(a.ctx, sdk.SetSessionModeRequest{SessionId: "nope", ModeId: "yolo"})
	assertCode(t, err, -32602)
}

func assertCode(t *testing.T, err error, code int) *sdk.RequestError {
	t.Helper()
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != code {
		t.Fatalf("error %v, want code %d", err, code)
	}
	return re
}

// A cancel mid-SLOW ends the prompt "cancelled" at once, and the session
// takes the next prompt.
func TestCancelSlow(t *testing.T) {
	a := startSDK(t, Options{})
	_, s := a.session(t, t.TempDir())
	done := a.promptAsync(s.SessionId, "SLOW 100")
	select {
	case <-a.c.updated:
	case <-a.ctx.Done():
		t.Fatal("no tick")
	}
	start := time.Now()
	if err := a.conn.Cancel(a.ctx, sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	r := a.awaitResult(t, done)
	if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled turn: %v %q", r.err, r.resp.StopReason)
	}
	// 100 ticks take 5 s: a reply within 1 s is the cancel's doing.
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %v", d)
	}
	if n := len(a.c.take()); n == 0 || n >= 100 {
		t.Errorf("%d ticks", n)
	}
	if r, err := a.prompt(s.SessionId, "after"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after the cancel: %v %q", err, r.StopReason)
	}
}

// A session loaded in a new process replays its turns as user and agent
// chunks and keeps its history (HISTORY); what cannot be loaded gets
// Gemini's -32603 "No previous sessions found".
func TestLoadInNewProcess(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	o := Options{StateDir: state, LoadSession: true}

	first := startSDK(t, o)
	_, s := first.session(t, dir)
	_, empty := first.session(t, dir) // never prompted: not stored, as Gemini
	for _, p := range []string{"one", "two"} {
		if _, err := first.prompt(s.SessionId, p); err != nil {
			t.Fatal(err)
		}
	}
	first.stdin.Close()
	assertEqual(t, "exit code", first.exitCode(t), 0)

	second := startSDK(t, o)
	init, err := second.conn.Initialize(second.ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.LoadSession {
		t.Error("loadSession not advertised")
	}
	loaded, err := second.conn.LoadSession(second.ctx, sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Modes == nil || loaded.Modes.CurrentModeId != "default" {
		t.Errorf("modes after load: %+v", loaded.Modes)
	}
	assertEqual(t, "replay", describeUpdates(second.c.take()),
		[]string{"user one", "agent echo: one", "user two", "agent echo: two"})
	if _, err := second.prompt(s.SessionId, "HISTORY"); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "history", describeUpdates(second.c.take()), []string{"agent one|two"})

	for name, req := range map[string]sdk.LoadSessionRequest{
		"never prompted": {SessionId: empty.SessionId, Cwd: dir},
		"unknown":        {SessionId: sdk.SessionId(uuid.NewString()), Cwd: dir},
		"other project":  {SessionId: s.SessionId, Cwd: t.TempDir()},
	} {
		req.McpServers = []sdk.McpServer{}
		_, err := second.conn.LoadSession(second.ctx, req)
		re := assertCode(t, err, -32603)
		if b, _ := json.Marshal(re.Data); !strings.Contains(string(b), "No previous sessions found") {
			t.Errorf("%s: data %s", name, b)
		}
	}
	_, err = second.conn.LoadSession(second.ctx, sdk.LoadSessionRequest{SessionId: "../x", Cwd: dir, McpServers: []sdk.McpServer{}})
	assertCode(t, err, -32602)
}

// The SDK's client works with an agent that omits "jsonrpc" (it does not
// check the member) and with non-JSON lines on the agent's stdout (it logs
// and skips them): an echo turn and a permission turn both complete.
func TestSDKToleratesNoJSONRPCAndGarbage(t *testing.T) {
	a := startSDK(t, Options{NoJSONRPC: true})
	var logs syncBuffer
	a.conn.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	_, s := a.session(t, t.TempDir())
	if r, err := a.prompt(s.SessionId, "GARBAGE"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("GARBAGE turn: %v %q", err, r.StopReason)
	}
	assertEqual(t, "updates", describeUpdates(a.c.take()), []string{"agent echo: ", "agent GARBAGE"})
	if n := strings.Count(logs.String(), "failed to parse incoming message"); n != 3 {
		t.Errorf("the SDK logged %d parse failures, want 3:\n%s", n, logs.String())
	}
	done := a.promptAsync(s.SessionId, "TOOL ls")
	a.awaitAsked(t)
	a.c.answer <- selected("proceed_once")
	if r := a.awaitResult(t, done); r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("TOOL turn: %v %q", r.err, r.resp.StopReason)
	}
}

// syncBuffer is a bytes.Buffer the SDK's goroutines can write to while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
