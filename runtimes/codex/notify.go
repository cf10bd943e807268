package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/codex/rollout"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// onNotification maps app-server notifications onto events. It runs on the
// peer's dispatch goroutine, one notification at a time, in order.
func (s *session) onNotification(method string, params json.RawMessage) {
	// A flood waits here, holding no lock, until the events already queued
	// are taken: the peer's bounded inbox then fills and Codex blocks on its
	// pipe.
	s.em.WaitRoom()
	switch method {
	case "item/agentMessage/delta":
		var p deltaParams
		if s.decode(method, params, &p) && p.Delta != "" {
			if s.streaming == nil || s.streaming.id != p.ItemID {
				s.streaming = &partial{id: p.ItemID, budget: kit.NewBudget()}
			}
			if d := s.streaming.take(s.log, p.Delta); d != "" {
				s.streaming.text.WriteString(d)
				s.em.Emit(runtimes.MessageDelta{MessageID: p.ItemID, Phase: rpc.PhaseText, Text: d})
			}
		}
	case "item/reasoning/summaryTextDelta", "item/reasoning/textDelta":
		var p deltaParams
		if s.decode(method, params, &p) && p.Delta != "" {
			if s.reasoning == nil || s.reasoning.id != p.ItemID {
				s.reasoning = &partial{id: p.ItemID, budget: kit.NewBudget()}
			}
			if d := s.reasoning.take(s.log, p.Delta); d != "" {
				s.em.Emit(runtimes.MessageDelta{MessageID: p.ItemID, Phase: rpc.PhaseThinking, Text: d})
			}
		}
	case "item/started":
		var p itemParams
		if s.decode(method, params, &p) && p.Item.Type == "fileChange" {
			// Its approval request names only the item: keep the paths and
			// diffs to show (pitfall 7 in CLI-PROTOCOLS.md).
			s.items[p.Item.ID] = p.Raw
		}
	case "item/completed":
		var p itemParams
		if !s.decode(method, params, &p) {
			return
		}
		delete(s.items, p.Item.ID)
		if s.streaming != nil && s.streaming.id == p.Item.ID {
			s.streaming = nil
		}
		if s.reasoning != nil && s.reasoning.id == p.Item.ID {
			s.reasoning = nil
		}
		if m, ok := liveMessage(s.id, p); ok {
			s.em.Emit(runtimes.MessageCompleted{Message: kit.CapMessage(m)})
		}
	case "turn/started":
		var p turnParams
		if s.decode(method, params, &p) {
			s.setTurnID(p.Turn.ID)
		}
	case "thread/tokenUsage/updated":
		var p struct {
			TurnID     string `json:"turnId"`
			TokenUsage struct {
				Last               tokenCount `json:"last"`
				ModelContextWindow *int64     `json:"modelContextWindow"`
			} `json:"tokenUsage"`
		}
		if s.decode(method, params, &p) {
			s.mu.Lock()
			s.usage = p.TokenUsage.Last.usage()
			s.mu.Unlock()
			s.em.Emit(contextOf(p.TokenUsage.Last, p.TokenUsage.ModelContextWindow))
		}
	case "account/rateLimits/updated":
		s.onRateLimits(params)
	case "turn/completed":
		var p turnParams
		if s.decode(method, params, &p) {
			s.turnCompleted(p)
		}
	case "error":
		var p errorParams
		if s.decode(method, params, &p) {
			s.onError(p)
		}
	case "serverRequest/resolved":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if s.decode(method, params, &p) {
			s.resolved(requestID(p.RequestID))
		}
	default:
		// thread/started, thread/status/changed,
		// configWarning, turn/diff/updated, …: nothing a client needs.
	}
}

func (s *session) decode(method string, params json.RawMessage, v any) bool {
	if err := json.Unmarshal(params, v); err != nil {
		s.log.Warn("codex: undecodable notification", zap.String("method", method), zap.Error(err))
		return false
	}
	return true
}

type deltaParams struct {
	ItemID string `json:"itemId"`
	Delta  string `json:"delta"`
}

// itemParams are item/started and item/completed.
type itemParams struct {
	Item          liveItem        `json:"item"`
	Raw           json.RawMessage `json:"-"`
	CompletedAtMs int64           `json:"completedAtMs"`
}

func (p *itemParams) UnmarshalJSON(b []byte) error {
	type plain itemParams
	var q struct {
		plain
		Item json.RawMessage `json:"item"`
	}
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	*p = itemParams(q.plain)
	p.Raw = q.Item
	return json.Unmarshal(q.Item, &p.Item)
}

// liveItem is a thread item as app-server sends it (camelCase), reduced to
// what messages need.
type liveItem struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"` // userMessage
	Text             string                `json:"text"`    // agentMessage
	Summary          []string              `json:"summary"` // reasoning
	Command          string                `json:"command"` // commandExecution
	Cwd              string                `json:"cwd"`
	Status           string                `json:"status"`
	AggregatedOutput *string               `json:"aggregatedOutput"`
	ExitCode         *int                  `json:"exitCode"`
	Changes          []rollout.ChangeEntry `json:"changes"` // fileChange
}

// liveMessage converts a completed item into the message the rollout keeps
// for it (same id, same content); ok is false for items that are no message.
func liveMessage(threadID string, p itemParams) (rpc.Message, bool) {
	it := p.Item
	ts := time.Now().UTC()
	if p.CompletedAtMs > 0 {
		ts = time.UnixMilli(p.CompletedAtMs).UTC()
	}
	stamp := ts.Format(rollout.TimeFormat)
	switch it.Type {
	case "userMessage":
		content := []rpc.ContentBlock{}
		for _, c := range it.Content {
			if c.Type == "text" && c.Text != "" {
				content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: c.Text})
			}
		}
		return rollout.NewMessage(threadID, it.ID, rpc.MessageUser, stamp, content), true
	case "agentMessage":
		content := []rpc.ContentBlock{}
		if it.Text != "" {
			content = append(content, rpc.ContentBlock{Type: rpc.BlockText, Text: it.Text})
		}
		return rollout.NewMessage(threadID, it.ID, rpc.MessageAssistant, stamp, content), true
	case "reasoning":
		content := []rpc.ContentBlock{}
		for _, t := range it.Summary {
			if t != "" {
				content = append(content, rpc.ContentBlock{Type: rpc.BlockThinking, Thinking: t})
			}
		}
		return rollout.NewMessage(threadID, it.ID, rpc.MessageAssistant, stamp, content), true
	case "commandExecution":
		if it.Status == "declined" {
			// The rollout keeps no item for a declined command (only the
			// model's call and Codex's refusal): a message for it would
			// vanish from history. The prompt and its resolution tell it.
			return rpc.Message{}, false
		}
		out := ""
		if it.AggregatedOutput != nil {
			out = *it.AggregatedOutput
		}
		return rollout.ToolMessage(threadID, stamp, rollout.ToolItem{ID: it.ID, Argv: splitCommand(it.Command),
			Status: it.Status, Output: out, ExitCode: it.ExitCode}), true
	case "fileChange":
		return rollout.ToolMessage(threadID, stamp, rollout.ToolItem{ID: it.ID, Changes: it.Changes,
			Status: it.Status}), true
	}
	return rpc.Message{}, false
}

type turnParams struct {
	Turn struct {
		ID         string     `json:"id"`
		Status     string     `json:"status"`
		Error      *turnError `json:"error"`
		DurationMs int64      `json:"durationMs"`
	} `json:"turn"`
}

// turnCompleted ends the turn by its status: completed, interrupted (the
// user's interrupt, or a decision that cancelled the turn) or failed.
func (s *session) turnCompleted(p turnParams) {
	s.mu.Lock()
	codexTurn := s.codexTurn
	s.mu.Unlock()
	s.codexTurnEnded(codexTurn) // Codex is ready for the next turn/start
	t := p.Turn
	if t.Status != "completed" {
		s.closeStreaming()
	}
	switch t.Status {
	case "interrupted":
		s.endTurn(t.ID, runtimes.TurnFailed{Code: runtimes.CodeInterrupted, Message: "interrupted"})
	case "failed":
		failed := runtimes.TurnFailed{Code: runtimes.CodeRuntimeError, Message: "the turn failed"}
		if t.Error != nil && t.Error.Message != "" {
			failed = runtimes.TurnFailed{Code: t.Error.code(), Message: t.Error.Message}
		}
		s.failTurn(t.ID, failed)
	default:
		s.mu.Lock()
		usage := s.usage
		s.mu.Unlock()
		s.endTurn(t.ID, runtimes.TurnCompleted{Usage: usage, StopReason: "end_turn", DurationMS: t.DurationMs})
	}
}

// partial is an item streamed so far: its text (kept for an agent message
// only), within kit.MaxMessageText; deltas beyond it are dropped, as the
// item/completed message is cut, with a note (kit.CapMessage).
type partial struct {
	id     string
	text   strings.Builder
	budget kit.Budget
}

// take is the part of delta that fits the item's budget.
func (m *partial) take(log *zap.Logger, delta string) string {
	before := m.budget.Dropped()
	d := m.budget.Take(delta)
	if before == 0 && m.budget.Dropped() > 0 {
		log.Warn("codex: item over the limit; the rest is dropped", zap.String("item", m.id),
			zap.Int("limit", kit.MaxMessageText))
	}
	return d
}

// closeStreaming completes the message an interrupted or failed turn left
// open (Codex sends no item/completed for it), so that clients holding its
// deltas get it whole, as Claude's adapter does. Codex does not keep it in
// the rollout: it is live only.
func (s *session) closeStreaming() {
	m := s.streaming
	s.streaming, s.reasoning = nil, nil
	if m == nil || m.text.Len() == 0 {
		return
	}
	text := m.text.String()
	if n := m.budget.Dropped(); n > 0 {
		text += kit.TruncationNote(n)
	}
	s.em.Emit(runtimes.MessageCompleted{Message: rollout.NewMessage(s.id, m.id, rpc.MessageAssistant,
		time.Now().UTC().Format(rollout.TimeFormat),
		[]rpc.ContentBlock{{Type: rpc.BlockText, Text: text}})})
}

// endTurn ends the running turn with terminal, unless turnID names another
// turn: one that already ended (an error notification, then its
// turn/completed) must not end the next.
func (s *session) endTurn(turnID string, terminal runtimes.Event) bool {
	s.mu.Lock()
	if turnID != "" && (s.ended[turnID] || (s.turnID != "" && s.turnID != turnID)) {
		s.mu.Unlock()
		s.log.Debug("codex: end of a turn that is not running", zap.String("turn", turnID))
		return false
	}
	if turnID != "" {
		s.ended[turnID] = true
	}
	s.mu.Unlock()
	return s.turn.End(terminal)
}

// tokenCount is one of thread/tokenUsage/updated's counts.
type tokenCount struct {
	InputTokens       int64 `json:"inputTokens"`
	CachedInputTokens int64 `json:"cachedInputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
}

func (c tokenCount) usage() rpc.Usage {
	return rpc.Usage{InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, CacheReadInputTokens: c.CachedInputTokens}
}

// canonicalPath resolves symlinks where it can, so that two spellings of one
// directory compare equal.
func canonicalPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
