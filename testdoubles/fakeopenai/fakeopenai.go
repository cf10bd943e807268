// Package fakeopenai is a fake OpenAI Responses API for tests that run the
// real Codex CLI on loopback. A test scripts each answer with a Responder
// (text, a function call such as exec_command, a slow stream or an API
// error); the server streams it as the Responses API's server-sent events and
// records every request, so the test can assert what the CLI sent (model,
// history, tool outputs) and that it called nothing else.
//
// The default Responder echoes the last user text.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/fakeapi"
)

// Server is a running fake API on 127.0.0.1.
type Server struct {
	*fakeapi.Server[Request, Reply]
}

// Responder decides the reply to one POST /v1/responses request.
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

// BaseURL is what a model provider's base_url names: the root plus /v1.
func (s *Server) BaseURL() string { return s.URL() + "/v1" }

// ResponseRequests returns the POST /v1/responses requests received so far.
func (s *Server) ResponseRequests() []Request { return s.RequestsWhere(Request.IsResponses) }

// LastResponseRequest is the last Responses API request received; none
// fails the test.
func (s *Server) LastResponseRequest(t testing.TB) Request {
	t.Helper()
	return s.LastWhere(t, Request.IsResponses, "Responses request")
}

// Unexpected returns the requests that were not POST /v1/responses: each was
// answered 404, and a test that wants the CLI hermetic asserts there are none.
func (s *Server) Unexpected() []Request {
	return s.RequestsWhere(func(r Request) bool { return !r.IsResponses() })
}

// Echo is the default responder: "echo: <last user text>".
func Echo(r Request) Reply { return Text("echo: " + r.LastUserText()) }

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	base, ok := fakeapi.ReadRequest(w, hr)
	if !ok {
		return
	}
	req := Request{HTTPRequest: base}
	body := base.Body
	var decodeErr error
	if req.IsResponses() {
		decodeErr = json.Unmarshal(body, &req)
	}
	responder, id := s.Record(req)

	if !req.IsResponses() {
		writeError(w, &APIError{Status: http.StatusNotFound, Type: "invalid_request_error",
			Message: "fake: no route for " + req.Method + " " + req.Path})
		return
	}
	if decodeErr != nil {
		writeError(w, &APIError{Status: http.StatusBadRequest, Type: "invalid_request_error",
			Message: "fake: body is not a responses request: " + decodeErr.Error()})
		return
	}
	reply := responder(req)
	fakeapi.SetHeaders(w, reply.Headers)
	if reply.Err != nil {
		writeError(w, reply.Err)
		return
	}
	respID := fmt.Sprintf("resp_fake_%d", id)
	if req.Stream {
		s.stream(w, hr, req, respID, id, reply)
	} else {
		fakeapi.WriteJSON(w, http.StatusOK, response(req, respID, "completed", reply.items(id), reply.usage(req)))
	}
}

func writeError(w http.ResponseWriter, e *APIError) {
	w.Header().Set("x-request-id", "req_fake")
	fakeapi.WriteJSON(w, e.Status, map[string]any{
		"error": map[string]any{"type": e.Type, "message": e.Message, "code": e.Code, "param": nil},
	})
}

// inputTokens is a stable stand-in for a token count: about four bytes each.
func inputTokens(r Request) int {
	n := 0
	for _, it := range r.Input {
		n += len(it.Content) + len(it.Arguments) + len(it.Output)
	}
	return n/4 + 1
}
