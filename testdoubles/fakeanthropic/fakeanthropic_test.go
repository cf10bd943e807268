package fakeanthropic

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const userTurn = `{"model":"m-1","max_tokens":10,"stream":true,"messages":[
	{"role":"user","content":"first"},
	{"role":"assistant","content":[{"type":"text","text":"ok"}]},
	{"role":"user","content":[{"type":"text","text":"second"},{"type":"text","text":"<system-reminder>x</system-reminder>"}]}]}`

func post(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sse struct {
	Type  string `json:"type"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	ContentBlock struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"content_block"`
}

// events reads a stream's data lines, checking each names its event.
func events(t *testing.T, r io.Reader) []sse {
	t.Helper()
	var out []sse
	sc := bufio.NewScanner(r)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			event = name
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var e sse
			if err := json.Unmarshal([]byte(data), &e); err != nil || e.Type != event {
				t.Fatalf("bad event %q after %q: %v", data, event, err)
			}
			out = append(out, e)
		}
	}
	return out
}

func TestStreamsEchoByDefault(t *testing.T) {
	s := New(t)
	resp := post(t, s, "/v1/messages?beta=true", userTurn)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	evs := events(t, resp.Body)
	var types []string
	var text strings.Builder
	for _, e := range evs {
		types = append(types, e.Type)
		text.WriteString(e.Delta.Text)
	}
	want := "message_start content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if text.String() != "echo: second" || evs[5].Delta.StopReason != "end_turn" {
		t.Errorf("text %q, stop %q", text.String(), evs[5].Delta.StopReason)
	}
	reqs := s.MessageRequests()
	if len(reqs) != 1 || reqs[0].Model != "m-1" || reqs[0].RawQuery != "beta=true" ||
		reqs[0].Transcript() != "user: first\nassistant: ok\nuser: second\nuser: <system-reminder>x</system-reminder>\n" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestStreamsThinkingAndToolUse(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply {
		r := UseTool("Bash", map[string]string{"command": "ls"})
		r.Thinking = "hmm"
		return r
	})
	evs := events(t, post(t, s, "/v1/messages", userTurn).Body)
	var thinking, input strings.Builder
	var blocks []string
	for _, e := range evs {
		thinking.WriteString(e.Delta.Thinking)
		input.WriteString(e.Delta.PartialJSON)
		if e.Type == "content_block_start" {
			blocks = append(blocks, e.ContentBlock.Type+":"+e.ContentBlock.Name)
		}
	}
	if thinking.String() != "hmm" || input.String() != `{"command":"ls"}` ||
		strings.Join(blocks, ",") != "thinking:,tool_use:Bash" || evs[len(evs)-2].Delta.StopReason != "tool_use" {
		t.Errorf("thinking %q, input %q, blocks %v, events %+v", thinking.String(), input.String(), blocks, evs)
	}
}

func TestToolResultIsVisible(t *testing.T) {
	s := New(t)
	post(t, s, "/v1/messages", `{"model":"m","messages":[{"role":"user","content":[
		{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"denied"}]}]}]}`)
	res, ok := s.MessageRequests()[0].ToolResult()
	if !ok || !res.IsError || res.ResultText() != "denied" || res.ToolUseID != "t1" {
		t.Errorf("tool result %+v %q", res, res.ResultText())
	}
}

func TestNonStreamingAndOtherRoutes(t *testing.T) {
	s := New(t)
	var msg struct {
		Content []struct{ Text string } `json:"content"`
	}
	resp := post(t, s, "/v1/messages", strings.Replace(userTurn, `"stream":true`, `"stream":false`, 1))
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || len(msg.Content) != 1 || msg.Content[0].Text != "echo: second" {
		t.Errorf("non-streaming reply %+v, %v", msg, err)
	}
	if resp := post(t, s, "/v1/messages/count_tokens", userTurn); resp.StatusCode != http.StatusOK {
		t.Errorf("count_tokens: %s", resp.Status)
	}
	if resp := post(t, s, "/v1/other", "{}"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown route: %s", resp.Status)
	}
	head, err := http.Head(s.URL() + "/")
	if err != nil || head.StatusCode != http.StatusOK {
		t.Errorf("HEAD /: %v %v", head, err)
	}
	if n := len(s.Requests()); n != 4 {
		t.Errorf("recorded %d requests, want 4", n)
	}
}

func TestAPIError(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply { return Fail(http.StatusBadRequest, "invalid_request_error", "no") })
	resp := post(t, s, "/v1/messages", userTurn)
	var body struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusBadRequest ||
		body.Type != "error" || body.Error.Type != "invalid_request_error" || body.Error.Message != "no" {
		t.Errorf("%s %+v %v", resp.Status, body, err)
	}
}

func TestSlowStreamEndsWhenClientLeaves(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply { return Slow("one two", time.Minute) })
	before := goleak.IgnoreCurrent()
	client := &http.Client{Transport: &http.Transport{}}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/messages",
		strings.NewReader(userTurn))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), "content_block_start") {
	}
	cancel()
	resp.Body.Close()
	client.CloseIdleConnections()
	// The handler would otherwise wait a minute before its next write.
	goleak.VerifyNone(t, before)
}

// Serve runs the fake outside a test's lifetime: it answers until Close,
// a slow stream under way ends at Close, and closing again does nothing.
func TestServeUntilClose(t *testing.T) {
	s := Serve()
	s.Respond(func(Request) Reply { return Slow("one two three four five six", time.Hour) })
	resp, err := http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader(userTurn))
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Close()
	}()
	_, _ = io.Copy(io.Discard, resp.Body) // the stream ends: Close does not wait an hour
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the slow stream")
	}
	s.Close()
	if _, err := http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader(userTurn)); err == nil {
		t.Error("the fake still answers after Close")
	}
}
