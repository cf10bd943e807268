package fakegemini

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

const streamPath = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"

// userTurn is shaped like the CLI's: a session-context user content ahead of
// the history, a tool call and its response, then the prompt.
const userTurn = `{"contents":[
	{"role":"user","parts":[{"text":"<session_context>x</session_context>"}]},
	{"role":"user","parts":[{"text":"first"}]},
	{"role":"model","parts":[{"text":"ok","thoughtSignature":"s"}]},
	{"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"ls"}}}]},
	{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"a.txt"}}}]},
	{"role":"user","parts":[{"text":"<env>y</env>"},{"text":"second"}]},
	{"role":"model","parts":[{"text":"thinking","thought":true}]}],
	"systemInstruction":{"role":"user","parts":[{"text":"You are Gemini CLI"}]},
	"tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"write_file"}]}],
	"generationConfig":{"temperature":0}}`

func post(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type chunk struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []Part `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		TotalTokenCount      int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

// chunks reads a stream's data lines; only the last may carry a finish
// reason and usage.
func chunks(t *testing.T, r io.Reader) []chunk {
	t.Helper()
	var out []chunk
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		data, ok := strings.CutPrefix(strings.TrimSuffix(sc.Text(), "\r"), "data: ")
		if !ok {
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil || len(c.Candidates) != 1 ||
			c.Candidates[0].Content.Role != "model" {
			t.Fatalf("bad chunk %q: %v", data, err)
		}
		out = append(out, c)
	}
	for i, c := range out {
		last := i == len(out)-1
		if (c.Candidates[0].FinishReason == "STOP") != last || (c.UsageMetadata != nil) != last {
			t.Errorf("chunk %d of %d: finish %q, usage %v", i, len(out), c.Candidates[0].FinishReason, c.UsageMetadata)
		}
	}
	return out
}

func TestStreamsEchoByDefault(t *testing.T) {
	s := New(t)
	resp := post(t, s, streamPath, userTurn)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	cs := chunks(t, resp.Body)
	var text strings.Builder
	for _, c := range cs {
		for _, p := range c.Candidates[0].Content.Parts {
			text.WriteString(p.Text)
		}
	}
	u := cs[len(cs)-1].UsageMetadata
	if len(cs) != 2 || text.String() != "echo: second" || u.CandidatesTokenCount != 2 ||
		u.TotalTokenCount != u.PromptTokenCount+2 {
		t.Errorf("%d chunks, text %q, usage %+v", len(cs), text.String(), u)
	}
	reqs := s.GenerateRequests()
	if len(reqs) != 1 || reqs[0].Model != "gemini-2.5-flash" || !reqs[0].HasTool("run_shell_command") ||
		reqs[0].HasTool("ask_user") || reqs[0].LastUserText() != "second" {
		t.Fatalf("recorded %+v", reqs)
	}
	want := "user: <session_context>x</session_context>\nuser: first\nmodel: ok\n" +
		`call: run_shell_command {"command":"ls"}` + "\n" +
		`response: run_shell_command {"output":"a.txt"}` + "\nuser: <env>y</env>\nuser: second\n"
	if got := reqs[0].Transcript(); got != want {
		t.Errorf("transcript:\n got %q\nwant %q", got, want)
	}
}

func TestStreamsThoughtAndFunctionCall(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply {
		r := Shell("touch x.txt")
		r.Thought = "hmm"
		return r
	})
	cs := chunks(t, post(t, s, streamPath, userTurn).Body)
	if len(cs) != 2 {
		t.Fatalf("%d chunks, want thought then call", len(cs))
	}
	th, call := cs[0].Candidates[0].Content.Parts[0], cs[1].Candidates[0].Content.Parts[0]
	if !th.Thought || th.Text != "hmm" || call.FunctionCall == nil || call.FunctionCall.Name != "run_shell_command" ||
		string(call.FunctionCall.Args) != `{"command":"touch x.txt","description":"run cmd"}` {
		t.Errorf("thought %+v, call %+v", th, call.FunctionCall)
	}
}

func TestFunctionResponseIsVisible(t *testing.T) {
	s := New(t)
	post(t, s, streamPath, `{"contents":[{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"error":"canceled"}}}]}]}`)
	fr, ok := s.GenerateRequests()[0].FunctionResponse()
	if !ok || fr.ID != "c1" || fr.Name != "run_shell_command" || string(fr.Response) != `{"error":"canceled"}` {
		t.Errorf("function response %+v %v", fr, ok)
	}
	if _, ok := (Request{}).FunctionResponse(); ok {
		t.Error("an empty request has a function response")
	}
}

func TestOtherRoutesAndBadBodies(t *testing.T) {
	s := New(t)
	if resp := post(t, s, "/v1beta/models/gemini-2.5-flash:generateContent", "{}"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("non-streaming route: %s", resp.Status)
	}
	if resp := post(t, s, "/v1beta/models/m:streamGenerateContent", "{}"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("stream without alt=sse: %s", resp.Status)
	}
	resp := post(t, s, streamPath, "not json")
	var body struct {
		Error struct {
			Code   int
			Status string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusBadRequest ||
		body.Error.Code != 400 || body.Error.Status != "INVALID_ARGUMENT" {
		t.Errorf("bad body: %s %+v %v", resp.Status, body, err)
	}
	if u := s.Unexpected(); len(s.Requests()) != 3 || len(u) != 2 || u[1].RawQuery != "" {
		t.Errorf("recorded %d requests, unexpected %+v", len(s.Requests()), u)
	}
}

func TestAPIError(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply { return Fail(http.StatusBadRequest, "INVALID_ARGUMENT", "no") })
	resp := post(t, s, streamPath, userTurn)
	var body struct {
		Error struct {
			Code    int
			Message string
			Status  string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusBadRequest ||
		body.Error.Code != 400 || body.Error.Status != "INVALID_ARGUMENT" || body.Error.Message != "no" {
		t.Errorf("%s %+v %v", resp.Status, body, err)
	}
}

func TestSlowStreamEndsWhenClientLeaves(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply { return Slow("one two", time.Minute) })
	before := goleak.IgnoreCurrent()
	client := &http.Client{Transport: &http.Transport{}}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+streamPath, strings.NewReader(userTurn))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The headers are out; the handler waits a minute before its first chunk.
	cancel()
	resp.Body.Close()
	client.CloseIdleConnections()
	goleak.VerifyNone(t, before)
}
