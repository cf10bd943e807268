// Package fakeanthropic is a fake Anthropic Messages API for tests that run
// the real Claude Code CLI on loopback. A test scripts each answer with a
// Responder (text, thinking, a tool call, a slow stream or an API error); the
// server streams it as standard SSE and records every request so the test can
// assert what the CLI sent (model, history, tool results).
//
// The default Responder echoes the last user text, which also keeps side
// requests the CLI may make (titles, summaries) working.
package fakeanthropic

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

// Responder decides the reply to one POST /v1/messages request.
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

// MessageRequests returns the POST /v1/messages requests received so far.
func (s *Server) MessageRequests() []Request { return s.RequestsWhere(Request.IsMessages) }

// LastMessageRequest is the last POST /v1/messages request received; none
// fails the test.
func (s *Server) LastMessageRequest(t testing.TB) Request {
	t.Helper()
	return s.LastWhere(t, Request.IsMessages, "messages request")
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
	if req.IsMessages() || req.Path == "/v1/messages/count_tokens" {
		decodeErr = json.Unmarshal(body, &req)
	}
	responder, id := s.Record(req)
	if decodeErr != nil {
		writeError(w, &APIError{Status: http.StatusBadRequest, Type: "invalid_request_error",
			Message: "fake: body is not a messages request: " + decodeErr.Error()})
		return
	}

	switch {
	case req.IsMessages():
		reply := responder(req)
		fakeapi.SetHeaders(w, reply.Headers)
		if reply.Err != nil {
			writeError(w, reply.Err)
			return
		}
		msgID := fmt.Sprintf("msg_fake_%03d", id)
		if req.Stream {
			s.stream(w, hr, req, msgID, reply)
		} else {
			fakeapi.WriteJSON(w, http.StatusOK, message(req, msgID, reply))
		}
	case req.Path == "/v1/messages/count_tokens":
		fakeapi.WriteJSON(w, http.StatusOK, map[string]int{"input_tokens": inputTokens(req)})
	case req.Path == "/" && (req.Method == http.MethodHead || req.Method == http.MethodGet):
		w.WriteHeader(http.StatusOK)
	default:
		writeError(w, &APIError{Status: http.StatusNotFound, Type: "not_found_error",
			Message: "fake: no route for " + req.Method + " " + req.Path})
	}
}

func writeError(w http.ResponseWriter, e *APIError) {
	w.Header().Set("request-id", "req_fake")
	fakeapi.WriteJSON(w, e.Status, map[string]any{
		"type":  "error",
		"error": map[string]string{"type": e.Type, "message": e.Message},
	})
}

// inputTokens is a stable stand-in for a token count: about four bytes each.
func inputTokens(r Request) int {
	n := 0
	for _, m := range r.Messages {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Thinking) + len(b.Input) + len(b.Content)
		}
	}
	return n/4 + 1
}
