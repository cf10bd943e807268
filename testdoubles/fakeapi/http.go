package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// HTTPRequest is what every fake records of a request, whatever its API:
// each fake's Request embeds it and adds the decoded body.
type HTTPRequest struct {
	Method   string      `json:"-"`
	Path     string      `json:"-"`
	RawQuery string      `json:"-"`
	Header   http.Header `json:"-"`
	Body     []byte      `json:"-"`
}

// ReadRequest reads hr whole. A body that cannot be read is answered 400
// here (false): no API's error shape applies to a broken connection.
func ReadRequest(w http.ResponseWriter, hr *http.Request) (HTTPRequest, bool) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return HTTPRequest{}, false
	}
	return HTTPRequest{Method: hr.Method, Path: hr.URL.Path, RawQuery: hr.URL.RawQuery,
		Header: hr.Header.Clone(), Body: body}, true
}

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// SetHeaders adds h to the answer's headers; called before the answer's
// status is written. The model APIs say a plan's limits in headers, which the
// CLIs turn into their own rate-limit events.
func SetHeaders(w http.ResponseWriter, h http.Header) {
	for name, values := range h {
		for _, v := range values {
			w.Header().Add(name, v)
		}
	}
}

// Words splits text into word-sized pieces (spaces kept), so that a client
// sees several deltas.
func Words(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, " ")
}

// Stream is one reply of server-sent events. Every send is flushed at
// once, so that a client sees a slow stream as it goes.
type Stream struct {
	w       http.ResponseWriter
	flusher http.Flusher
	hr      *http.Request
	closing <-chan struct{}
	delay   time.Duration
}

// Stream starts an SSE reply to hr whose Wait pauses delay each time.
func (s *Server[Q, R]) Stream(w http.ResponseWriter, hr *http.Request, delay time.Duration) *Stream {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st := &Stream{w: w, flusher: flusher, hr: hr, closing: s.closing, delay: delay}
	st.flush() // headers out at once, so that a slow stream's client sees it start
	return st
}

// Event sends one named event with data encoded as JSON; false when the
// client has gone.
func (st *Stream) Event(name string, data any) bool {
	b, _ := json.Marshal(data)
	return st.write("event: %s\ndata: %s\n\n", name, b)
}

// Data sends one unnamed event, its lines ended by CRLF as Google's APIs
// end them.
func (st *Stream) Data(data any) bool {
	b, _ := json.Marshal(data)
	return st.write("data: %s\r\n\r\n", b)
}

func (st *Stream) write(format string, args ...any) bool {
	if _, err := fmt.Fprintf(st.w, format, args...); err != nil {
		return false
	}
	st.flush()
	return true
}

func (st *Stream) flush() {
	if st.flusher != nil {
		st.flusher.Flush()
	}
}

// Wait pauses the stream's delay; false when the client has gone or the
// test has ended, and the stream should stop.
func (st *Stream) Wait() bool {
	if st.delay <= 0 {
		return true
	}
	t := time.NewTimer(st.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-st.hr.Context().Done():
	case <-st.closing:
	}
	return false
}
