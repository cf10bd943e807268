package acp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// assembly is an agent message being streamed: ACP chunks carry no message
// id, so the session makes one per message. Its thinking and text share
// one budget (kit.MaxMessageText): chunks beyond it are neither streamed
// nor kept, and the closing message says how much was cut.
type assembly struct {
	id       string
	thinking strings.Builder
	text     strings.Builder
	tools    []rpc.ContentBlock // tool_use blocks that close it
	budget   kit.Budget
}

func newAssembly() *assembly { return &assembly{id: uuid.NewString(), budget: kit.NewBudget()} }

func (m *assembly) empty() bool {
	return m.thinking.Len() == 0 && m.text.Len() == 0 && len(m.tools) == 0
}

// message is the assembled message as clients see it.
func (m *assembly) message(sessionID string) rpc.Message {
	content := []rpc.ContentBlock{}
	thinking, text := m.thinking.String(), m.text.String()
	if n := m.budget.Dropped(); n > 0 {
		if text != "" {
			text += kit.TruncationNote(n)
		} else {
			thinking += kit.TruncationNote(n)
		}
	}
	if thinking != "" {
		content = append(content, rpc.ContentBlock{Type: rpc.BlockThinking, Thinking: thinking})
	}
	if text != "" {
		content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: text})
	}
	content = append(content, m.tools...)
	return rpc.Message{ID: m.id, SessionID: sessionID, Type: rpc.MessageAssistant, UUID: m.id, Timestamp: now(),
		Message: rpc.MessageBody{ID: m.id, Role: string(rpc.MessageAssistant), Content: content}}
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// onNotification handles the agent's notifications: session/update only
// (ACP has no other agent-to-client notification). It runs on the peer's
// dispatch goroutine.
func (s *session) onNotification(method string, params json.RawMessage) {
	// A flood waits here, on the dispatch goroutine, holding no lock, until
	// the events already queued are taken: the peer's bounded inbox then
	// fills and the agent blocks on its pipe.
	s.em.WaitRoom()
	if method != "session/update" {
		s.log.Debug("agent: notification ignored", zap.String("method", method))
		return
	}
	var n sdk.SessionNotification
	if err := json.Unmarshal(params, &n); err != nil {
		s.log.Warn("agent: session/update skipped", zap.Error(err))
		return
	}
	s.mu.Lock()
	loading, id := s.loading, s.id
	s.mu.Unlock()
	if loading {
		select {
		case s.replayed <- struct{}{}:
		default:
		}
		return
	}
	// Outside a turn an update is a replay's straggler or a notice
	// (available commands); neither is an event.
	if string(n.SessionId) != id || !s.turn.Busy() {
		return
	}
	u := n.Update
	s.heard(toolChangeOf(u))
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil && t.Text != "" {
			s.chunk(rpc.PhaseText, t.Text)
		}
	case u.AgentThoughtChunk != nil:
		if t := u.AgentThoughtChunk.Content.Text; t != nil {
			if text := stripSubject(t.Text); text != "" {
				s.chunk(rpc.PhaseThinking, text)
			}
		}
	case u.ToolCall != nil:
		tc := u.ToolCall
		kind := tc.Kind
		s.toolCall(string(tc.ToolCallId), tc.Title, &kind, tc.RawInput, tc.Content)
		if tc.Status == sdk.ToolCallStatusCompleted || tc.Status == sdk.ToolCallStatusFailed {
			s.toolResult(string(tc.ToolCallId), tc.Status == sdk.ToolCallStatusFailed, tc.Content, tc.RawOutput)
		}
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		if tc.Status != nil && (*tc.Status == sdk.ToolCallStatusCompleted || *tc.Status == sdk.ToolCallStatusFailed) {
			s.toolResult(string(tc.ToolCallId), *tc.Status == sdk.ToolCallStatusFailed, tc.Content, tc.RawOutput)
		}
	}
}

// subject is the bold first line Gemini puts before each thought.
var subject = regexp.MustCompile(`^\*\*[^\n]*\*\*\n`)

func stripSubject(t string) string { return subject.ReplaceAllString(t, "") }

// chunk streams a piece of the agent's message.
func (s *session) chunk(phase rpc.DeltaPhase, text string) {
	s.echoPrompt()
	s.mu.Lock()
	if s.msg == nil {
		s.msg = newAssembly()
	}
	m := s.msg
	before := m.budget.Dropped()
	if text = m.budget.Take(text); text == "" {
		s.mu.Unlock()
		return
	}
	if before == 0 && m.budget.Dropped() > 0 {
		s.log.Warn("agent: message over the limit; the rest is dropped", zap.String("message", m.id),
			zap.Int("limit", kit.MaxMessageText))
	}
	if phase == rpc.PhaseThinking {
		m.thinking.WriteString(text)
	} else {
		m.text.WriteString(text)
		s.turnTexts++
	}
	s.em.Emit(runtimes.MessageDelta{MessageID: m.id, Phase: phase, Text: text})
	s.mu.Unlock()
}

// echoPrompt emits the turn's prompt as the transcript keeps it, before the
// first piece of the answer: agents store the prompt before they ask their
// model. Tried once per turn; a prompt not stored yet comes with the next
// sync.
func (s *session) echoPrompt() {
	if s.a.spec.Transcripts == nil {
		return
	}
	s.mu.Lock()
	tried := s.promptTried
	s.promptTried = true
	s.mu.Unlock()
	if !tried {
		s.syncWhere(isTypedPrompt)
	}
}

// isTypedPrompt reports whether m is what a user typed (text only). The
// prompt is all echoPrompt emits: the answer's record may be stored while
// it is still being written (Gemini writes it again with its usage), and
// the turn's end reads it whole.
func isTypedPrompt(m rpc.Message) bool {
	if m.Type != rpc.MessageUser {
		return false
	}
	for _, b := range m.Message.Content {
		if b.Type != rpc.BlockText {
			return false
		}
	}
	return len(m.Message.Content) > 0
}

// toolCall announces a tool call: it closes the message streamed before it.
// The files its content shows changed are kept for its result, should the
// update that completes it not repeat them.
func (s *session) toolCall(id, title string, kind *sdk.ToolKind, rawInput any, content []sdk.ToolCallContent) {
	if s.a.spec.Transcripts != nil {
		// The stored record is the message; later chunks are another one.
		s.mu.Lock()
		s.msg = nil
		s.mu.Unlock()
		s.sync()
		return
	}
	name := "tool"
	if kind != nil && *kind != "" {
		name = string(*kind)
	}
	input := json.RawMessage(`{}`)
	if b, err := json.Marshal(rawInput); err == nil && len(b) > 0 && b[0] == '{' {
		input = b
	} else if title != "" {
		input, _ = json.Marshal(map[string]string{"title": title})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := toolDiffs(content); d != nil {
		s.diffs[id] = d
	}
	if s.msg == nil {
		s.msg = newAssembly()
	}
	s.msg.tools = append(s.msg.tools, rpc.ContentBlock{Type: rpc.BlockToolUse, ID: id, Name: name, Input: input})
	s.emitMessageLocked()
}

// toolResult reports a finished tool call.
func (s *session) toolResult(id string, failed bool, content []sdk.ToolCallContent, rawOutput any) {
	if s.a.spec.Transcripts != nil {
		s.sync()
		return
	}
	s.emitResult(id, failed, toolText(content, rawOutput), toolDiffs(content))
}

// notRun closes a tool call that was refused, or withdrawn by a cancel,
// before it ran: the agent may send no update for it (Gemini sends none),
// and a tool_use without a result would look running to clients forever.
// With a transcript reader the stored record is the result.
func (s *session) notRun(id, why string) {
	s.heard(id, toolClosed)
	if s.a.spec.Transcripts != nil || id == "" {
		return
	}
	s.emitResult(id, true, why, nil)
}

// emitResult emits a tool call's result once: an update the agent sends
// after cdevd closed the call itself is not a second result. Its diffs are
// the files the call changed, or those its announcement showed. ACP
// reports no exit status for a command (only terminals, which cdevd does
// not offer, have one), so a result carries none.
func (s *session) emitResult(id string, failed bool, text string, diffs []rpc.ToolDiff) {
	s.mu.Lock()
	done := s.resulted[id]
	s.resulted[id] = true
	if diffs == nil && !failed {
		diffs = s.diffs[id]
	}
	delete(s.diffs, id)
	s.mu.Unlock()
	if done {
		return
	}
	out, _ := json.Marshal(text)
	mid := uuid.NewString()
	s.em.Emit(runtimes.MessageCompleted{Message: kit.CapMessage(rpc.Message{ID: mid, SessionID: s.id, Type: rpc.MessageUser, UUID: mid,
		Timestamp: now(), Message: rpc.MessageBody{Role: string(rpc.MessageUser), Content: []rpc.ContentBlock{
			{Type: rpc.BlockToolResult, ToolUseID: id, Content: out, IsError: failed, Diffs: diffs}}}})})
}

// toolDiffs is the files a tool call's diff content shows changed, with
// their text before and after; nil when it shows none.
func toolDiffs(content []sdk.ToolCallContent) []rpc.ToolDiff {
	var out []rpc.ToolDiff
	for _, c := range content {
		if d := c.Diff; d != nil {
			old := ""
			if d.OldText != nil {
				old = *d.OldText
			}
			out = append(out, rpc.ToolDiff{Path: d.Path, OldText: old, NewText: d.NewText})
		}
	}
	return out
}

// toolText is a tool call's output as text: its text content, the files
// its diffs changed, else its raw output.
func toolText(content []sdk.ToolCallContent, rawOutput any) string {
	var parts []string
	for _, c := range content {
		switch {
		case c.Content != nil && c.Content.Content.Text != nil:
			parts = append(parts, c.Content.Content.Text.Text)
		case c.Diff != nil:
			parts = append(parts, "edited "+c.Diff.Path)
		}
	}
	if len(parts) == 0 && rawOutput != nil {
		if b, err := json.Marshal(rawOutput); err == nil {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}

// emitMessageLocked completes the streamed message (s.mu held).
func (s *session) emitMessageLocked() {
	if s.msg != nil && !s.msg.empty() {
		s.em.Emit(runtimes.MessageCompleted{Message: s.msg.message(s.id)})
	}
	s.msg = nil
}

// closeMessage completes the message a turn streamed last, at its end. A
// cancelled turn's partial answer is nowhere else (agents do not store
// it), so it is completed from the stream in any case. Otherwise a runtime
// with a transcript reads it from there; should the transcript not hold
// the turn's answer, the stream's is completed rather than lost.
func (s *session) closeMessage(cancelled bool) {
	if s.a.spec.Transcripts != nil && cancelled {
		s.sync() // the prompt, and what was stored before the cancel
	}
	if s.a.spec.Transcripts == nil || cancelled {
		s.mu.Lock()
		s.emitMessageLocked()
		s.mu.Unlock()
		return
	}
	found := s.sync()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !found && s.turnTexts > 0 && s.msg != nil {
		s.log.Warn("agent: the transcript does not hold the turn's answer; completing it from the stream")
		s.emitMessageLocked()
	}
	s.msg = nil
}

// syncWindow is how many of the newest stored messages a sync compares:
// a sync runs after every tool call, so far fewer are new each time.
const syncWindow = 100

// seed records the messages stored before this process started, so that a
// sync emits only what the session adds.
func (s *session) seed(ctx context.Context) {
	if s.a.spec.Transcripts == nil {
		return
	}
	msgs, _, err := s.a.spec.Transcripts.Messages(ctx, s.dir, s.id, 0, syncWindow, true)
	if err != nil {
		return // nothing stored yet
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range msgs {
		s.seen[m.ID] = digest(m)
	}
}

// sync emits the stored messages that are new or changed since the last
// sync, oldest first (the turn's prompt among them, with its stored id),
// and reports whether one of them was an agent message.
func (s *session) sync() (answered bool) {
	return s.syncWhere(func(rpc.Message) bool { return true })
}

// syncWhere is sync of the messages want accepts; the others are left for
// a later sync.
func (s *session) syncWhere(want func(rpc.Message) bool) (answered bool) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	msgs, _, err := s.a.spec.Transcripts.Messages(ctx, s.dir, s.id, 0, syncWindow, true)
	if err != nil {
		s.log.Debug("agent: transcript not readable yet", zap.Error(err))
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		d := digest(m)
		if s.seen[m.ID] == d || !want(m) {
			continue
		}
		s.seen[m.ID] = d
		if m.Type == rpc.MessageAssistant {
			answered = true
		}
		s.em.Emit(runtimes.MessageCompleted{Message: kit.CapMessage(m)})
	}
	return answered
}

func digest(m rpc.Message) string {
	b, _ := json.Marshal(m)
	sum := sha256.Sum256(b)
	return string(sum[:])
}
