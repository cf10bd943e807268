package geminitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes/proc/proctest"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
)

// TestACPTextAndPermission drives the real `gemini --acp` by hand against the
// fake, proving the environment: handshake without authenticate (the
// settings select the API key), a session, a text turn streamed as
// agent_message_chunk and ended by the prompt's reply with its usage, a
// run_shell_command permission request answered proceed_once that creates
// the file, the chat file on disk, and stdin EOF ending every process.
func TestACPTextAndPermission(t *testing.T) {
	api := fakegemini.New(t)
	api.Respond(func(r fakegemini.Request) fakegemini.Reply {
		if _, ok := r.FunctionResponse(); ok {
			return fakegemini.Text("Hello from fake Gemini (tool done).")
		}
		if strings.Contains(r.LastUserText(), "RUNTOOL") {
			return fakegemini.Shell("touch made_by_gemini.txt")
		}
		return fakegemini.Text("Hello from fake Gemini.")
	})
	mark := freshMark(t)
	env := append(Env(t, api.URL()), mark)
	ws := t.TempDir()
	deadline := time.Now().Add(Timeout)

	spawned := time.Now()
	a := startACP(t, env, ws)
	init, _ := a.reply(deadline, a.request("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false}}))
	t.Logf("spawn → initialize reply: %v", init.at.Sub(spawned))
	var initRes struct {
		ProtocolVersion int `json:"protocolVersion"`
		AgentInfo       struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"agentInfo"`
		AgentCapabilities struct {
			LoadSession bool `json:"loadSession"`
		} `json:"agentCapabilities"`
	}
	if err := json.Unmarshal(init.Result, &initRes); err != nil || initRes.ProtocolVersion != 1 ||
		initRes.AgentInfo.Name != "gemini-cli" || initRes.AgentInfo.Version != "0.61.0" || !initRes.AgentCapabilities.LoadSession {
		t.Fatalf("initialize result %s (%v)", init.Result, err)
	}

	asked := time.Now()
	created, _ := a.reply(deadline, a.request("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}))
	t.Logf("session/new → reply: %v", created.at.Sub(asked))
	var newRes struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	if err := json.Unmarshal(created.Result, &newRes); err != nil || newRes.SessionID == "" || newRes.Modes.CurrentModeID != "default" {
		t.Fatalf("session/new result %s (%v)", created.Result, err)
	}
	sid := newRes.SessionID

	// A text turn: chunks, then the prompt's reply ends the turn.
	prompted := time.Now()
	id := a.request("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []map[string]string{{"type": "text", "text": "hello"}}})
	first, _ := a.await(deadline, "agent_message_chunk", func(m msg) bool {
		u, ok := m.update()
		return ok && u.Update.SessionUpdate == "agent_message_chunk"
	})
	t.Logf("prompt → first agent_message_chunk: %v", first.at.Sub(prompted))
	end, seen := a.reply(deadline, id)
	t.Logf("prompt → reply: %v", end.at.Sub(prompted))
	var text strings.Builder
	for _, m := range append([]msg{first}, seen...) {
		if u, ok := m.update(); ok && u.Update.SessionUpdate == "agent_message_chunk" {
			chunk, ok := u.chunk()
			if u.SessionID != sid || !ok {
				t.Errorf("chunk %s", m.raw)
			}
			text.WriteString(chunk)
		}
	}
	var res promptResult
	if err := json.Unmarshal(end.Result, &res); err != nil || res.StopReason != "end_turn" ||
		res.Meta.Quota.TokenCount.InputTokens == 0 || res.Meta.Quota.TokenCount.OutputTokens == 0 ||
		len(res.Meta.Quota.ModelUsage) != 1 || res.Meta.Quota.ModelUsage[0].Model != Model {
		t.Errorf("prompt reply %s (%v)", end.Result, err)
	}
	if text.String() != "Hello from fake Gemini." {
		t.Errorf("chunks %q", text.String())
	}

	reqs := api.GenerateRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests after a text turn, want 1", len(reqs))
	}
	r := reqs[0]
	body := r.Body
	if len(body) > 1000 {
		body = body[:1000]
	}
	t.Logf("the CLI's model request: POST %s?%s User-Agent %q, %d contents, transcript %q; body starts %s",
		r.Path, r.RawQuery, r.Header.Get("User-Agent"), len(r.Contents), r.Transcript(), body)
	if r.Model != Model || r.LastUserText() != "hello" || !strings.HasPrefix(r.Transcript(), "user: <session_context>") || r.Header.Get("x-goog-api-key") != APIKey ||
		!strings.HasPrefix(r.Header.Get("User-Agent"), "GeminiCLI-acp/0.61.0/") || !r.HasTool("run_shell_command") {
		t.Errorf("model request: model %q, last user text %q, key %q, agent %q, shell tool %v",
			r.Model, r.LastUserText(), r.Header.Get("x-goog-api-key"), r.Header.Get("User-Agent"), r.HasTool("run_shell_command"))
	}

	// A tool call: in mode default the permission request is the only
	// announcement; proceed_once runs it.
	id = a.request("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []map[string]string{{"type": "text", "text": "RUNTOOL please"}}})
	ask, _ := a.await(deadline, "session/request_permission", func(m msg) bool {
		return m.Method == "session/request_permission" || isReply(id)(m)
	})
	if ask.Method == "" {
		t.Fatalf("the turn ended without asking to run the command: %s", ask.raw)
	}
	var perm struct {
		SessionID string `json:"sessionId"`
		Options   []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
		ToolCall struct {
			ToolCallID string `json:"toolCallId"`
			Title      string `json:"title"`
			Kind       string `json:"kind"`
			Status     string `json:"status"`
		} `json:"toolCall"`
	}
	if err := json.Unmarshal(ask.Params, &perm); err != nil || ask.ID == nil || perm.SessionID != sid ||
		perm.ToolCall.Title != "touch made_by_gemini.txt" || perm.ToolCall.Kind != "execute" || perm.ToolCall.Status != "pending" {
		t.Fatalf("permission request %s (%v)", ask.raw, err)
	}
	kinds := map[string]string{}
	for _, o := range perm.Options {
		kinds[o.OptionID] = o.Kind
	}
	if kinds["proceed_once"] != "allow_once" || kinds["proceed_always"] != "allow_always" || kinds["cancel"] != "reject_once" {
		t.Errorf("permission options %v", kinds)
	}
	a.send(map[string]any{"jsonrpc": "2.0", "id": *ask.ID,
		"result": map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "proceed_once"}}})
	end, seen = a.reply(deadline, id)
	var completed bool
	text.Reset()
	for _, m := range seen {
		u, ok := m.update()
		switch {
		case !ok:
		case u.Update.SessionUpdate == "tool_call_update":
			completed = completed || (u.Update.ToolCallID == perm.ToolCall.ToolCallID && u.Update.Status == "completed")
		case u.Update.SessionUpdate == "agent_message_chunk":
			chunk, _ := u.chunk()
			text.WriteString(chunk)
		}
	}
	if err := json.Unmarshal(end.Result, &res); err != nil || res.StopReason != "end_turn" ||
		!completed || text.String() != "Hello from fake Gemini (tool done)." {
		t.Errorf("tool turn: reply %s, tool_call_update completed %v, text %q", end.Result, completed, text.String())
		for _, m := range seen {
			t.Logf("seen: %s", m.raw)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "made_by_gemini.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	reqs = api.GenerateRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if fr, ok := reqs[2].FunctionResponse(); !ok || fr.Name != "run_shell_command" {
		t.Errorf("third request's function response %+v %v; transcript %q", fr, ok, reqs[2].Transcript())
	}
	if u := api.Unexpected(); len(u) != 0 {
		t.Errorf("unexpected requests to the fake: %+v", u)
	}

	// The answer is in the session's chat file when the prompt's reply arrives.
	chats, _ := filepath.Glob(filepath.Join(Home(env), ".gemini", "tmp", "*", "chats", "session-*-"+sid[:8]+".jsonl"))
	if len(chats) != 1 {
		t.Errorf("chat files for %s: %v", sid, chats)
	} else if b, err := os.ReadFile(chats[0]); err != nil || !bytes.Contains(b, []byte("Hello from fake Gemini (tool done).")) {
		t.Errorf("chat file lacks the answer at the prompt's reply (%v)", err)
	}

	// stdin EOF ends the CLI and everything it started.
	closed := time.Now()
	a.stdin.Close()
	if err, ok := a.waitExit(deadline); !ok {
		t.Fatal("gemini still running after stdin EOF")
	} else if err != nil {
		t.Errorf("gemini exit after stdin EOF: %v", err)
	}
	t.Logf("stdin EOF → exit: %v", time.Since(closed))
	if left := proctest.Marked(mark); len(left) > 0 {
		t.Errorf("processes left after exit: %v", left)
	}
}

// TestACPCancelMidStream proves the fake's slow stream with the real CLI:
// session/cancel during the answer ends the prompt as cancelled, promptly,
// and the CLI drops the stream (the fake sees the client leave).
func TestACPCancelMidStream(t *testing.T) {
	api := fakegemini.New(t)
	api.Respond(func(fakegemini.Request) fakegemini.Reply {
		return fakegemini.Slow("tick1 tick2 tick3 tick4 tick5 tick6", time.Second)
	})
	mark := freshMark(t)
	env := append(Env(t, api.URL()), mark)
	ws := t.TempDir()
	deadline := time.Now().Add(Timeout)
	a := startACP(t, env, ws)
	sid := a.open(deadline, ws)

	id := a.request("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []map[string]string{{"type": "text", "text": "count slowly"}}})
	first, _ := a.await(deadline, "agent_message_chunk", func(m msg) bool {
		u, ok := m.update()
		return ok && u.Update.SessionUpdate == "agent_message_chunk"
	})
	if u, _ := first.update(); !strings.HasPrefix(string(u.Update.Content), `{"type":"text","text":"tick1`) {
		t.Errorf("first chunk %s", first.raw)
	}
	cancelled := time.Now()
	a.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]string{"sessionId": sid}})
	end, seen := a.reply(deadline, id)
	t.Logf("session/cancel → prompt reply: %v", end.at.Sub(cancelled))
	var res promptResult
	if err := json.Unmarshal(end.Result, &res); err != nil || res.StopReason != "cancelled" {
		t.Errorf("prompt reply %s (%v)", end.Result, err)
	}
	// The rest of the stream would take five more seconds: the cancel cut it.
	if took := end.at.Sub(cancelled); took >= 5*time.Second {
		t.Errorf("the cancelled prompt replied after %v, as late as the whole stream", took)
	}
	for _, m := range seen[:len(seen)-1] {
		t.Logf("after the cancel: %s", m.raw)
		if bytes.Contains(m.raw, []byte("tick6")) {
			t.Errorf("the stream's end reached the client after the cancel: %s", m.raw)
		}
	}
	closed := time.Now()
	a.stdin.Close()
	if _, ok := a.waitExit(deadline); !ok {
		t.Fatal("gemini still running after stdin EOF")
	}
	t.Logf("stdin EOF → exit: %v", time.Since(closed))
	if left := proctest.Marked(mark); len(left) > 0 {
		t.Errorf("processes left after exit: %v", left)
	}
}

// TestACPAPIError proves the fake's errors with the real CLI: a 400 from
// the model API ends the prompt with a JSON-RPC error carrying the API's
// message, promptly (no retry of a 4xx), and the session takes the next
// prompt.
func TestACPAPIError(t *testing.T) {
	api := fakegemini.New(t)
	api.Respond(func(fakegemini.Request) fakegemini.Reply {
		return fakegemini.Fail(400, "INVALID_ARGUMENT", "fake says no")
	})
	env := Env(t, api.URL())
	ws := t.TempDir()
	deadline := time.Now().Add(Timeout)
	a := startACP(t, env, ws)
	sid := a.open(deadline, ws)

	prompted := time.Now()
	id := a.request("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []map[string]string{{"type": "text", "text": "hi"}}})
	end, _ := a.await(deadline, "prompt reply", isReply(id))
	t.Logf("prompt → error reply: %v", end.at.Sub(prompted))
	// The CLI passes the HTTP status on as the JSON-RPC code and the API's
	// error body as the message.
	var rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(end.Error, &rpcErr); err != nil || rpcErr.Code != 400 ||
		!strings.Contains(rpcErr.Message, "fake says no") {
		t.Errorf("prompt reply %s (%v)", end.raw, err)
	}
	if n := len(api.GenerateRequests()); n != 1 {
		t.Errorf("%d model requests for a 400, want 1 (no retry)", n)
	}

	api.Respond(nil)
	id = a.request("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []map[string]string{{"type": "text", "text": "again"}}})
	end, seen := a.reply(deadline, id)
	var text strings.Builder
	for _, m := range seen {
		if u, ok := m.update(); ok && u.Update.SessionUpdate == "agent_message_chunk" {
			chunk, _ := u.chunk()
			text.WriteString(chunk)
		}
	}
	var res promptResult
	if err := json.Unmarshal(end.Result, &res); err != nil || res.StopReason != "end_turn" || text.String() != "echo: again" {
		t.Errorf("prompt after the error: %s, text %q (%v)", end.Result, text.String(), err)
	}
	a.stdin.Close()
	if _, ok := a.waitExit(deadline); !ok {
		t.Fatal("gemini still running after stdin EOF")
	}
}

// TestACPThought proves the fake's thought part with the real CLI: it
// arrives as one agent_thought_chunk, before the answer's
// agent_message_chunk, with the "**subject**\n" prefix the CLI adds (empty
// when the thought has no bold subject line).
func TestACPThought(t *testing.T) {
	api := fakegemini.New(t)
	api.Respond(func(r fakegemini.Request) fakegemini.Reply {
		if r.LastUserText() == "subject" {
			return fakegemini.Think("**Planning**\nPondering the request.", "Answer.")
		}
		return fakegemini.Think("Pondering the request.", "Answer.")
	})
	env := Env(t, api.URL())
	ws := t.TempDir()
	deadline := time.Now().Add(Timeout)
	a := startACP(t, env, ws)
	sid := a.open(deadline, ws)
	for prompt, want := range map[string]string{
		"plain":   `agent_thought_chunk "****\nPondering the request." agent_message_chunk "Answer."`,
		"subject": `agent_thought_chunk "**Planning**\nPondering the request." agent_message_chunk "Answer."`,
	} {
		_, seen := a.reply(deadline, a.request("session/prompt", map[string]any{"sessionId": sid,
			"prompt": []map[string]string{{"type": "text", "text": prompt}}}))
		var got []string
		for _, m := range seen {
			if u, ok := m.update(); ok && strings.HasPrefix(u.Update.SessionUpdate, "agent_") {
				chunk, _ := u.chunk()
				got = append(got, fmt.Sprintf("%s %q", u.Update.SessionUpdate, chunk))
			}
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s thought:\n got %s\nwant %s", prompt, g, want)
		}
	}
	a.stdin.Close()
	if _, ok := a.waitExit(deadline); !ok {
		t.Fatal("gemini still running after stdin EOF")
	}
}
