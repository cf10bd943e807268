package acpfake

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
)

// A cancel while a permission request is open leaves the prompt pending
// (Gemini, pitfall 6): requests sent after the cancel are answered, the
// prompt is not, until the client answers the request "cancelled"; then it
// ends "cancelled" without running the tool. Agent request ids start at 0.
func TestCancelDuringPermission(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	r.prompt(t, 3, sid, "TOOL touch x")
	req := r.next(t)
	if req.describe() != "request 0 session/request_permission" {
		t.Fatalf("got %s, want the permission request with id 0", req.line)
	}
	r.call(t, nil, "session/cancel", map[string]string{"sessionId": sid})
	// A request after the cancel is answered first: the prompt is still open.
	r.call(t, 4, "session/set_mode", map[string]string{"sessionId": sid, "modeId": "default"})
	assertEqual(t, "after the cancel", describeAll(r.reply(t, 4)), []string{"reply 4 {}"})
	r.quiet(t)
	r.write(t, `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}`)
	assertEqual(t, "after the answer", describeAll(r.reply(t, 3)), []string{`reply 3 {"stopReason":"cancelled"}`})
}

// A second prompt while one runs cancels the first, which replies before the
// second starts (Gemini does the same; cdevd must refuse "busy" itself).
func TestSecondPromptCancelsFirst(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	r.prompt(t, 3, sid, "SLOW 100")
	assertEqual(t, "first tick", r.next(t).describe(), "update agent_message_chunk tick1 ")
	r.prompt(t, 4, sid, "hello")
	got := describeAll(r.reply(t, 4))
	if len(got) > 0 && got[0] == "update agent_message_chunk tick2 " {
		got = got[1:]
	}
	assertEqual(t, "lines", got, []string{
		`reply 3 {"stopReason":"cancelled"}`,
		"update agent_message_chunk echo: ",
		"update agent_message_chunk hello",
		`reply 4 {"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":5,"output_tokens":11}}}}`,
	})
}

// With NoJSONRPC no line the agent writes has a "jsonrpc" member: replies,
// errors, notifications and its own requests.
func TestNoJSONRPCLines(t *testing.T) {
	for _, noJSONRPC := range []bool{true, false} {
		r := startRaw(t, Options{NoJSONRPC: noJSONRPC})
		sid := r.session(t, t.TempDir())
		r.prompt(t, 3, sid, "TOOL ls")
		req := r.next(t)
		r.write(t, `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"proceed_once"}}}`)
		lines := append([]msg{req}, r.reply(t, 3)...)
		r.call(t, 4, "nope", map[string]any{})
		lines = append(lines, r.reply(t, 4)...)
		for _, m := range lines {
			if has := m.JSONRPC != nil; has == noJSONRPC {
				t.Errorf("NoJSONRPC=%v: %s", noJSONRPC, m.line)
			} else if has && *m.JSONRPC != "2.0" {
				t.Errorf("jsonrpc %q", *m.JSONRPC)
			}
		}
	}
}

// Requests the agent cannot serve get a clear JSON-RPC error; an unknown
// notification is ignored.
func TestErrors(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	for i, c := range []struct {
		method string
		params any
		want   string
	}{
		{"session/list", map[string]any{}, `error 10 -32601 "Method not found": session/list`},
		{"session/load", map[string]any{"sessionId": sid, "cwd": "/"}, `error 11 -32601 "Method not found": session/load`},
		{"session/new", map[string]any{"cwd": "rel", "mcpServers": []any{}}, `error 12 -32602 Invalid params: cwd "rel" is not an absolute path`},
		{"session/new", nil, `error 13 -32602 Invalid params: missing`},
		{"session/prompt", map[string]any{"sessionId": "x", "prompt": []any{map[string]string{"type": "text", "text": "hi"}}}, `error 14 -32602 Session not found: x`},
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": []any{}}, `error 15 -32602 Invalid params: the prompt has no text block`},
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]string{"type": "text", "text": "SLOW many"}}}, `error 16 -32602 Invalid params: SLOW needs a count, got "many"`},
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]string{"type": "text", "text": "FAIL"}}}, `error 17 -32603 model failed`},
	} {
		id := 10 + i
		r.call(t, nil, "what/ever", map[string]any{}) // ignored
		r.call(t, id, c.method, c.params)
		assertEqual(t, c.method, describeAll(r.reply(t, id)), []string{c.want})
	}
	r.write(t, "not json")
	m := r.next(t)
	if m.Error == nil || m.Error.Code != -32700 || string(m.ID) != "null" {
		t.Errorf("a line that is not JSON: %s", m.line)
	}
}

// GARBAGE prints lines that are not JSON, then answers as usual.
func TestGarbageLines(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	r.prompt(t, 3, sid, "GARBAGE")
	for range 3 {
		l := r.nextLine(t)
		if json.Valid([]byte(l)) {
			t.Errorf("garbage line %q is JSON", l)
		}
	}
	got := describeAll(r.reply(t, 3))
	assertEqual(t, "after the garbage", got[:2], []string{"update agent_message_chunk echo: ", "update agent_message_chunk GARBAGE"})
}

// CRASH sends a chunk, then the process exits 3 without a reply.
func TestCrash(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	r.prompt(t, 3, sid, "CRASH")
	assertEqual(t, "chunk", r.next(t).describe(), "update agent_message_chunk crashing")
	assertEqual(t, "exit code", r.exitCode(t), 3)
	if l, ok := <-r.lines; ok {
		t.Errorf("a line after the crash: %s", l)
	}
}

// HANG says nothing until cancelled; the end of stdin ends the agent (exit
// 0) even mid-prompt.
func TestHangThenEOF(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	r.prompt(t, 3, sid, "HANG")
	r.call(t, 4, "session/set_mode", map[string]string{"sessionId": sid, "modeId": "default"})
	assertEqual(t, "while hanging", describeAll(r.reply(t, 4)), []string{"reply 4 {}"})
	r.call(t, nil, "session/cancel", map[string]string{"sessionId": sid})
	assertEqual(t, "cancelled", describeAll(r.reply(t, 3)), []string{`reply 3 {"stopReason":"cancelled"}`})

	r.prompt(t, 5, sid, "HANG")
	r.call(t, 6, "session/set_mode", map[string]string{"sessionId": sid, "modeId": "default"})
	r.reply(t, 6)
	r.stdin.Close()
	assertEqual(t, "exit code at EOF", r.exitCode(t), 0)
}

func TestSIGTERM(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir()) // the handler is installed once it answers
	r.prompt(t, 3, sid, "SLOW 1000")
	r.next(t)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "exit code at SIGTERM", r.exitCode(t), 0)
}

// BIG sends one chunk of n bytes; STDERR writes a line to stderr.
func TestBigAndStderr(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	r.prompt(t, 3, sid, "BIG 200000")
	m := r.next(t)
	var p struct {
		Update struct{ Content struct{ Text string } }
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Update.Content.Text != strings.Repeat("x", 200000) {
		t.Errorf("BIG chunk: %d bytes, %v", len(p.Update.Content.Text), err)
	}
	r.reply(t, 3)
	r.prompt(t, 4, sid, "STDERR")
	r.reply(t, 4)
	r.stdin.Close()
	r.exitCode(t)
	if s := r.stderrText(t); !strings.Contains(s, "a line on stderr") {
		t.Errorf("stderr: %q", s)
	}
}

// Options that cannot work are refused at start, with the reason.
func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{LoadSession: true}, {StateDir: "rel"}} {
		p := startAgent(t, o)
		if code := p.exitCode(t); code != 2 {
			t.Errorf("%+v: exit code %d", o, code)
		}
		if s := p.stderrText(t); !strings.Contains(s, "acpfake:") {
			t.Errorf("%+v: stderr %q", o, s)
		}
	}
}

// FLOOD sends n chunks of size bytes, then ends the turn.
func TestFlood(t *testing.T) {
	r := startRaw(t, Options{})
	sid := r.session(t, t.TempDir())
	r.prompt(t, 3, sid, "FLOOD 3 1000")
	for range 3 {
		var p struct {
			Update struct{ Content struct{ Text string } }
		}
		if err := json.Unmarshal(r.next(t).Params, &p); err != nil || p.Update.Content.Text != strings.Repeat("x", 1000) {
			t.Fatalf("FLOOD chunk: %d bytes, %v", len(p.Update.Content.Text), err)
		}
	}
	r.reply(t, 3)
	r.stdin.Close()
	r.exitCode(t)
}
