package fakeopenai

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

// userTurn is shaped like Codex's: developer instructions and an
// <environment_context> user message ahead of the prompt.
const userTurn = `{"model":"gpt-5.5","stream":true,"tool_choice":"auto","input":[
	{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex"}]},
	{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]},
	{"type":"message","role":"user","content":[{"type":"input_text","text":"first"}]},
	{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]},
	{"type":"message","role":"user","content":[{"type":"input_text","text":"second"}]}],
	"tools":[{"type":"function","name":"exec_command","parameters":{}},{"type":"custom","name":"apply_patch"},{"type":"web_search"}]}`

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
	Type     string          `json:"type"`
	Seq      int             `json:"sequence_number"`
	Delta    string          `json:"delta"`
	Item     json.RawMessage `json:"item"`
	Response struct {
		ID     string            `json:"id"`
		Status string            `json:"status"`
		Output []json.RawMessage `json:"output"`
		Usage  struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	} `json:"response"`
}

type outItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	CallID    string `json:"call_id"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// events reads a stream's data lines, checking each names its event and the
// sequence numbers count from 0.
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
			if err := json.Unmarshal([]byte(data), &e); err != nil || e.Type != event || e.Seq != len(out) {
				t.Fatalf("bad event %q after %q: %v", data, event, err)
			}
			out = append(out, e)
		}
	}
	return out
}

func types(evs []sse) string {
	var names []string
	for _, e := range evs {
		names = append(names, strings.TrimPrefix(e.Type, "response."))
	}
	return strings.Join(names, " ")
}

func TestStreamsEchoByDefault(t *testing.T) {
	s := New(t)
	resp := post(t, s, "/v1/responses", userTurn)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	evs := events(t, resp.Body)
	want := "created output_item.added content_part.added output_text.delta output_text.delta output_text.done output_item.done completed"
	if got := types(evs); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	var text strings.Builder
	for _, e := range evs {
		if e.Type == "response.output_text.delta" {
			text.WriteString(e.Delta)
		}
	}
	var done outItem
	_ = json.Unmarshal(evs[6].Item, &done)
	last := evs[len(evs)-1].Response
	if text.String() != "echo: second" || done.Type != "message" || done.Content[0].Text != "echo: second" ||
		last.Status != "completed" || len(last.Output) != 1 || last.Usage.TotalTokens != last.Usage.InputTokens+2 {
		t.Errorf("text %q, item %+v, completed %+v", text.String(), done, last)
	}
	reqs := s.ResponseRequests()
	if len(reqs) != 1 || reqs[0].Model != "gpt-5.5" || !reqs[0].HasTool("exec_command") || !reqs[0].HasTool("apply_patch") ||
		reqs[0].Transcript() != "user: first\nassistant: ok\nuser: second\n" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestStreamsReasoningAndFunctionCall(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply {
		r := Exec("touch x.txt")
		r.Reasoning = "hmm"
		return r
	})
	evs := events(t, post(t, s, "/v1/responses", userTurn).Body)
	want := "created output_item.added reasoning_summary_part.added reasoning_summary_text.delta reasoning_summary_text.done output_item.done " +
		"output_item.added function_call_arguments.delta function_call_arguments.delta function_call_arguments.done output_item.done completed"
	if got := types(evs); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	var args strings.Builder
	for _, e := range evs {
		if e.Type == "response.function_call_arguments.delta" {
			args.WriteString(e.Delta)
		}
	}
	var call outItem
	_ = json.Unmarshal(evs[10].Item, &call)
	if args.String() != `{"cmd":"touch x.txt"}` || call.Type != "function_call" || call.Name != "exec_command" ||
		call.Arguments != args.String() || call.CallID != "call_fake_1" {
		t.Errorf("arguments %q, call %+v", args.String(), call)
	}
}

func TestCallOutputIsVisible(t *testing.T) {
	s := New(t)
	post(t, s, "/v1/responses", `{"model":"m","input":[
		{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c1"},
		{"type":"function_call_output","call_id":"c1","output":"Process exited with code 0"}]}`)
	out, ok := s.ResponseRequests()[0].CallOutput()
	if !ok || out.CallID != "c1" || out.OutputText() != "Process exited with code 0" {
		t.Errorf("call output %+v %q", out, out.OutputText())
	}
	if tr := s.ResponseRequests()[0].Transcript(); tr != "call: exec_command {}\noutput: Process exited with code 0\n" {
		t.Errorf("transcript %q", tr)
	}
}

func TestNonStreamingAndOtherRoutes(t *testing.T) {
	s := New(t)
	var res struct {
		Status string    `json:"status"`
		Output []outItem `json:"output"`
	}
	resp := post(t, s, "/v1/responses", strings.Replace(userTurn, `"stream":true`, `"stream":false`, 1))
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.Status != "completed" ||
		len(res.Output) != 1 || res.Output[0].Content[0].Text != "echo: second" {
		t.Errorf("non-streaming reply %+v, %v", res, err)
	}
	if resp := post(t, s, "/v1/models", "{}"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown route: %s", resp.Status)
	}
	if resp := post(t, s, "/v1/responses", "not json"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad body: %s", resp.Status)
	}
	if u := s.Unexpected(); len(s.Requests()) != 3 || len(u) != 1 || u[0].Path != "/v1/models" {
		t.Errorf("recorded %d requests, unexpected %+v", len(s.Requests()), u)
	}
}

func TestAPIError(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply { return Fail(http.StatusBadRequest, "invalid_request_error", "no") })
	resp := post(t, s, "/v1/responses", userTurn)
	var body struct {
		Error struct{ Type, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusBadRequest ||
		body.Error.Type != "invalid_request_error" || body.Error.Message != "no" {
		t.Errorf("%s %+v %v", resp.Status, body, err)
	}
}

func TestSlowStreamEndsWhenClientLeaves(t *testing.T) {
	s := New(t)
	s.Respond(func(Request) Reply { return Slow("one two", time.Minute) })
	before := goleak.IgnoreCurrent()
	client := &http.Client{Transport: &http.Transport{}}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/responses",
		strings.NewReader(userTurn))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), "content_part.added") {
	}
	cancel()
	resp.Body.Close()
	client.CloseIdleConnections()
	// The handler would otherwise wait a minute before its next write.
	goleak.VerifyNone(t, before)
}
