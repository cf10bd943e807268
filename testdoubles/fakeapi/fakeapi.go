// Package fakeapi is the server every fake model API (fakeanthropic,
// fakeopenai, fakegemini) stands on: an httptest server on loopback closed
// with the test, a replaceable responder with a default, the record of every
// request, reading requests and writing JSON and server-sent events (with a
// delay that closing never waits for). Each fake keeps only its own wire:
// routes, request and reply shapes.
package fakeapi

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Server is a fake API answering requests Q with replies R.
type Server[Q, R any] struct {
	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once
	def     func(Q) R

	mu        sync.Mutex
	responder func(Q) R
	requests  []Q
}

// New returns a server whose responder is def until Respond replaces it;
// Start runs it.
func New[Q, R any](def func(Q) R) *Server[Q, R] {
	return &Server[Q, R]{closing: make(chan struct{}), def: def, responder: def}
}

// Start serves h on 127.0.0.1:0 until the test ends.
func (s *Server[Q, R]) Start(t testing.TB, h http.HandlerFunc) {
	t.Helper()
	s.Serve(h)
	t.Cleanup(s.Close)
}

// Serve serves h on 127.0.0.1:0 until Close, outside any test.
func (s *Server[Q, R]) Serve(h http.HandlerFunc) {
	s.srv = httptest.NewServer(h)
}

// Close stops slow streams and the server; it waits for the requests
// being served to end. Closing again does nothing.
func (s *Server[Q, R]) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.srv.Close()
	})
}

// URL is the server's root.
func (s *Server[Q, R]) URL() string { return s.srv.URL }

// Respond replaces the responder; nil restores the default.
func (s *Server[Q, R]) Respond(r func(Q) R) {
	if r == nil {
		r = s.def
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = r
}

// Requests returns every request received so far, in order.
func (s *Server[Q, R]) Requests() []Q {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Q(nil), s.requests...)
}

// LastWhere is the last request received for which keep holds (what
// names it); none fails the test.
func (s *Server[Q, R]) LastWhere(t testing.TB, keep func(Q) bool, what string) Q {
	t.Helper()
	reqs := s.RequestsWhere(keep)
	if len(reqs) == 0 {
		t.Fatalf("no %s reached the fake API", what)
	}
	return reqs[len(reqs)-1]
}

// RequestsWhere returns the requests received so far for which keep holds,
// in order.
func (s *Server[Q, R]) RequestsWhere(keep func(Q) bool) []Q {
	var out []Q
	for _, q := range s.Requests() {
		if keep(q) {
			out = append(out, q)
		}
	}
	return out
}

// Record adds a request and returns the responder to answer it with and
// its number (from 1), which fakes use to make reply ids unique.
func (s *Server[Q, R]) Record(q Q) (func(Q) R, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, q)
	return s.responder, len(s.requests)
}

// Closing is closed when the test ends or Close is called: slow streams
// stop waiting.
func (s *Server[Q, R]) Closing() <-chan struct{} { return s.closing }
