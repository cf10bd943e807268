package acp

// The model's silence: an agent that retries a failing model API without a
// word (Gemini 0.61.0 in ACP mode: a 429, a 5xx or a refused connection,
// ten attempts over about four minutes) leaves a client with an endless
// "thinking". With Spec.ModelSilence set, a turn that waits on the model
// (no tool call open, no permission prompt) and hears nothing from the
// agent for that long is given up: cdevd cancels the prompt, and the
// turn, once the agent has acknowledged the cancel, ends with
// stall_timeout and a message that says what may be wrong. A tool that
// runs long without output is not the model's silence.

import (
	"fmt"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
)

// toolChange is what an update does to the open tool calls.
type toolChange int

const (
	toolNone   toolChange = iota
	toolOpened            // announced (or asked for permission), not finished
	toolClosed            // completed, failed, refused or withdrawn
)

// silenceState is the watch over one turn; its fields are under session.mu.
type silenceState struct {
	running bool            // a turn runs
	tools   map[string]bool // the tool calls open in it
	timer   *time.Timer
	gen     int    // the timer's generation: a stale timer's fire is ignored
	gaveUp  string // set when cdevd cancelled the turn for the silence
}

// silenceBegin starts the watch for a new turn.
func (s *session) silenceBegin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silence.running, s.silence.tools, s.silence.gaveUp = true, map[string]bool{}, ""
	s.rearmLocked()
}

// heard: the agent said something in the running turn; change is what it
// did to the tool call id.
func (s *session) heard(id string, change toolChange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.silence.running {
		return
	}
	switch change {
	case toolOpened:
		s.silence.tools[id] = true
	case toolClosed:
		delete(s.silence.tools, id)
	}
	s.rearmLocked()
}

// toolChangeOf is what update u does to its tool call.
func toolChangeOf(u sdk.SessionUpdate) (id string, change toolChange) {
	finished := func(st sdk.ToolCallStatus) bool {
		return st == sdk.ToolCallStatusCompleted || st == sdk.ToolCallStatusFailed
	}
	switch {
	case u.ToolCall != nil:
		if finished(u.ToolCall.Status) {
			return string(u.ToolCall.ToolCallId), toolClosed
		}
		return string(u.ToolCall.ToolCallId), toolOpened
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && finished(*u.ToolCallUpdate.Status):
		return string(u.ToolCallUpdate.ToolCallId), toolClosed
	}
	return "", toolNone
}

// silenceEnd ends the watch with the turn; gaveUp is the failure's message
// when cdevd cancelled the turn for the silence.
func (s *session) silenceEnd() (gaveUp string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silence.running = false
	s.rearmLocked() // stops it
	return s.silence.gaveUp
}

// rearmLocked restarts the timer while the turn waits on the model, and
// stops it otherwise (s.mu held).
func (s *session) rearmLocked() {
	w := &s.silence
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.gen++
	d := s.a.spec.ModelSilence
	if d <= 0 || !w.running || len(w.tools) > 0 || w.gaveUp != "" {
		return
	}
	gen := w.gen
	w.timer = time.AfterFunc(d, func() { s.silent(gen) })
}

// silent gives the turn up: the model said nothing for ModelSilence. The
// turn ends when the agent answers the cancel (endTurn reads gaveUp).
func (s *session) silent(gen int) {
	s.mu.Lock()
	if gen != s.silence.gen || !s.silence.running || s.peer == nil {
		s.mu.Unlock()
		return
	}
	d := s.a.spec.ModelSilence
	s.silence.gaveUp = fmt.Sprintf("%s: no answer from the model for %v; cancelled. %s retries a failing model API "+
		"without a word (a rate limit, a server error, no connection): check its API, key and quota, or try again later",
		s.a.spec.ID, d, s.a.spec.DisplayName)
	s.mu.Unlock()
	s.log.Warn("acp: the model said nothing for too long; cdevd cancels the turn", zap.Duration("silence", d))
	if err := s.peer.Notify("session/cancel", sdk.CancelNotification{SessionId: sdk.SessionId(s.id)}); err != nil {
		// The process is gone: its exit ends the turn.
		s.log.Info("acp: could not cancel a silent turn", zap.Error(err))
	}
}

// silenceFailure is the failure a turn given up for the silence ends with.
func silenceFailure(msg string) runtimes.TurnFailed {
	return runtimes.TurnFailed{Code: runtimes.CodeStallTimeout, Message: msg}
}
