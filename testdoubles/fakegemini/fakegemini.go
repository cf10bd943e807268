// Package fakegemini is a fake Gemini API for tests that run the real Gemini
// CLI on loopback. It serves
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse (and
// :countTokens, which the CLI calls for an image): a test scripts
// each answer with a Responder (text, a function call such as
// run_shell_command, a slow stream or an API error); the server streams it as
// server-sent events of GenerateContentResponse chunks and records every
// request, so that a test can assert what the CLI sent (model, contents,
// function responses) and that it called nothing else.
//
// The default Responder echoes the last user text.
package fakegemini

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Server is a running fake API on 127.0.0.1.
type Server struct {
	*fakeapi.Server[Request, Reply]
}

// Responder decides the reply to one streamGenerateContent request.
type Responder func(Request) Reply

// New starts a fake on 127.0.0.1:0; it is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{fakeapi.New[Request, Reply](Echo)}
	s.Start(t, s.serve)
	return s
}

// Serve starts a fake on 127.0.0.1:0 outside a test (cdevd serve --demo);
// Close stops it.
func Serve() *Server {
	s := &Server{fakeapi.New[Request, Reply](Echo)}
	s.Server.Serve(s.serve)
	return s
}

// GenerateRequests returns the streamGenerateContent requests received so far.
func (s *Server) GenerateRequests() []Request { return s.RequestsWhere(Request.IsGenerate) }

// LastGenerateRequest is the last streamGenerateContent request received;
// none fails the test.
func (s *Server) LastGenerateRequest(t testing.TB) Request {
	t.Helper()
	return s.LastWhere(t, Request.IsGenerate, "streamGenerateContent request")
}

// Unexpected returns the requests that were neither streamGenerateContent
// nor countTokens: each was answered 404, and a test that wants the CLI
// hermetic asserts there are none.
func (s *Server) Unexpected() []Request {
	return s.RequestsWhere(func(r Request) bool { return !r.IsGenerate() && !r.IsCountTokens() })
}

// Echo is the default responder: "echo: <last user text>".
func Echo(r Request) Reply { return Text("echo: " + r.LastUserText()) }

const (
	modelsPrefix = "/v1beta/models/"
	streamSuffix = ":streamGenerateContent"
	countSuffix  = ":countTokens"
)

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	base, ok := fakeapi.ReadRequest(w, hr)
	if !ok {
		return
	}
	req := Request{HTTPRequest: base}
	body := base.Body
	var decodeErr error
	if req.IsGenerate() {
		req.Model = strings.TrimSuffix(strings.TrimPrefix(req.Path, modelsPrefix), streamSuffix)
		decodeErr = json.Unmarshal(body, &req)
	}
	responder, _ := s.Record(req)

	if req.IsCountTokens() {
		// The CLI counts a prompt's non-text parts (an image) before it
		// sends them; a rough count is all it needs.
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]int{"totalTokens": len(body)/4 + 1})
		return
	}
	if !req.IsGenerate() {
		writeError(w, &APIError{Status: http.StatusNotFound, Code: "NOT_FOUND",
			Message: "fake: no route for " + req.Method + " " + req.Path + "?" + req.RawQuery})
		return
	}
	if decodeErr != nil {
		writeError(w, &APIError{Status: http.StatusBadRequest, Code: "INVALID_ARGUMENT",
			Message: "fake: body is not a GenerateContentRequest: " + decodeErr.Error()})
		return
	}
	reply := responder(req)
	if reply.Err != nil {
		writeError(w, reply.Err)
		return
	}
	s.stream(w, hr, req, reply)
}

// writeError answers as Google APIs do: {"error":{code,message,status}}.
func writeError(w http.ResponseWriter, e *APIError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"code": e.Status, "message": e.Message, "status": e.Code},
	})
}

// stream sends the reply as SSE chunks: the thought, one per word of text,
// then the function call, the last chunk carrying finishReason and usageMetadata.
func (s *Server) stream(w http.ResponseWriter, hr *http.Request, req Request, r Reply) {
	st := s.Stream(w, hr, r.Delay)
	send := func(parts []map[string]any, last bool) bool {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		chunk := map[string]any{"candidates": []any{cand}, "modelVersion": req.Model}
		if last {
			cand["finishReason"] = "STOP"
			chunk["usageMetadata"] = r.usage(req)
		}
		return st.Data(chunk)
	}
	wait := st.Wait

	var chunks [][]map[string]any
	// A thought is one part, as the API sends a thought summary: the CLI
	// reads each thought part as "**subject**\ndescription" and trims it,
	// so word-sized parts would lose their spaces.
	if r.Thought != "" {
		chunks = append(chunks, []map[string]any{{"text": r.Thought, "thought": true}})
	}
	for _, wd := range fakeapi.Words(r.Text) {
		chunks = append(chunks, []map[string]any{{"text": wd}})
	}
	if r.Call != nil {
		args := r.Call.Args
		if args == nil {
			args = map[string]any{}
		}
		chunks = append(chunks, []map[string]any{{"functionCall": map[string]any{"name": r.Call.Name, "args": args}}})
	}
	if len(chunks) == 0 {
		chunks = append(chunks, []map[string]any{{"text": ""}})
	}
	for i, parts := range chunks {
		if !wait() || !send(parts, i == len(chunks)-1) {
			return
		}
	}
}
