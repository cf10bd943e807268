package client

// The WebSocket stream: one JSON-RPC message per text frame, seen by
// OnFrame, with the error that ended reading.

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// stream carries one JSON-RPC message per WebSocket text frame. It is the
// client's own, rather than jsonrpc2/websocket's, so that OnFrame sees
// the raw frames and the error that ended reading is kept for Err.
type stream struct {
	ws *websocket.Conn
	c  *Client

	mu      sync.Mutex
	readErr error
}

func (s *stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if f := s.c.cfg.OnFrame; f != nil {
		f(Sent, b) // jsonrpc2 writes one object at a time: frames keep their order
	}
	return s.ws.WriteMessage(websocket.TextMessage, b)
}

func (s *stream) ReadObject(v any) error {
	_, b, err := s.ws.ReadMessage()
	if err == nil {
		s.c.mu.Lock()
		s.c.last = time.Now()
		s.c.mu.Unlock()
		if f := s.c.cfg.OnFrame; f != nil {
			f(Received, b)
		}
		if err = json.Unmarshal(b, v); err != nil {
			err = fmt.Errorf("the server sent a frame that is not JSON-RPC: %w", err)
		}
	}
	if err != nil {
		s.mu.Lock()
		if s.readErr == nil {
			s.readErr = err
		}
		s.mu.Unlock()
	}
	return err
}

// err is why reading stopped (nil while it goes on).
func (s *stream) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readErr
}

func (s *stream) Close() error { return s.ws.Close() }
