package claude

import (
	"encoding/json"
	"math"
	"strings"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/transcript"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// streamState is what reading stdout remembers between lines.
type streamState struct {
	messageID string          // the message being streamed (from message_start)
	emitted   map[string]bool // ids of messages already emitted
	// totalCost is the CLI's running total_cost_usd: it reports a total
	// for the process, and a turn's cost is the difference.
	totalCost float64
	// budget is what the streamed message may still carry: deltas beyond
	// kit.MaxMessageText are dropped, as the message's line is cut, with a
	// note (kit.CapMessage).
	budget kit.Budget
	// apiError is the error kind of the CLI's synthetic assistant message
	// for a failed model call ("authentication_failed", "rate_limit", …),
	// kept to classify the turn's error result.
	apiError string
	// call is the last model call's context use (usage.go).
	call *lastCall
}

func newStreamState() streamState {
	return streamState{emitted: map[string]bool{}, budget: kit.NewBudget()}
}

// header is what every stdout line is dispatched on.
type header struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	// ParentToolUseID marks a sub-agent's output. Sub-agent conversations
	// are stored apart from the session's transcript, so they are not
	// streamed as the session's messages either.
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
}

// handleLine is proc's OnLine: one stdout line becomes events, and perhaps
// a control response. The response is written on its own goroutine: were
// this reader to block on a full stdin pipe, the CLI could block on a full
// stdout pipe and neither would read again.
func (s *session) handleLine(line []byte) {
	<-s.ready
	if s.discarding.Load() {
		return // being stopped: the output changes nothing now
	}
	// A flood waits here, holding no lock, until the events already queued
	// are taken: this reader then stops and the CLI blocks on its pipe.
	s.em.WaitRoom()
	var h header
	if err := json.Unmarshal(line, &h); err != nil || h.Type == "" {
		s.log.Warn("ignored a stdout line that is not a stream-json message", zap.ByteString("line", excerpt(line, 200)))
		return
	}
	s.mu.Lock()
	reply := s.handleLocked(h, line)
	s.mu.Unlock()
	if reply == nil {
		return
	}
	s.replies.Add(1)
	go func() {
		defer s.replies.Done()
		if err := s.writeJSON(reply); err != nil {
			s.log.Warn("could not answer a control request", zap.Error(err))
		}
	}()
}

func (s *session) handleLocked(h header, line []byte) (reply any) {
	if h.ParentToolUseID != nil && (h.Type == "stream_event" || h.Type == "assistant" || h.Type == "user") {
		return nil
	}
	switch h.Type {
	case "stream_event":
		s.onStreamEvent(line)
	case "assistant", "user":
		if h.Type == "assistant" {
			s.stream.noteCall(line)
		}
		s.onMessage(line)
	case "rate_limit_event":
		s.onRateLimit(line)
	case "result":
		s.onResult(line)
	case "system":
		s.onSystem(h, line)
	case "control_request":
		return s.onControlRequest(line)
	case "control_cancel_request":
		s.onControlCancel(line)
	case "control_response":
		s.onControlResponse(line)
	default:
		s.log.Info("ignored a stdout line of unknown type", zap.String("type", h.Type))
	}
	return nil
}

// onStreamEvent turns the raw API events into live deltas.
func (s *session) onStreamEvent(line []byte) {
	var l struct {
		Event struct {
			Type    string `json:"type"`
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
			Delta struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				Thinking string `json:"thinking"`
			} `json:"delta"`
		} `json:"event"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		s.log.Warn("ignored a malformed stream_event", zap.Error(err))
		return
	}
	ev := l.Event
	switch {
	case ev.Type == "message_start":
		s.stream.messageID = ev.Message.ID
		s.stream.budget = kit.NewBudget()
	case ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta":
		if d := s.takeDelta(ev.Delta.Text); d != "" {
			s.em.Emit(runtimes.MessageDelta{MessageID: s.stream.messageID, Phase: rpc.PhaseText, Text: d})
		}
	case ev.Type == "content_block_delta" && ev.Delta.Type == "thinking_delta":
		if d := s.takeDelta(ev.Delta.Thinking); d != "" {
			s.em.Emit(runtimes.MessageDelta{MessageID: s.stream.messageID, Phase: rpc.PhaseThinking, Text: d})
		}
	}
}

// takeDelta is the part of a delta that fits the streamed message's budget.
func (s *session) takeDelta(d string) string {
	before := s.stream.budget.Dropped()
	d = s.stream.budget.Take(d)
	if before == 0 && s.stream.budget.Dropped() > 0 {
		s.log.Warn("message over the limit; the rest of its stream is dropped",
			zap.String("message", s.stream.messageID), zap.Int("limit", kit.MaxMessageText))
	}
	return d
}

// onMessage emits a complete message, converted exactly as the transcript
// package converts stored ones. The CLI prints one line per content block,
// each with its own uuid, so the id also guards against a line seen twice.
func (s *session) onMessage(line []byte) {
	l, err := transcript.ParseLine(line)
	if err != nil {
		s.log.Warn("ignored a malformed message line", zap.Error(err))
		return
	}
	m, ok := transcript.ToMessage(s.id, l)
	if !ok || s.stream.emitted[m.ID] {
		return
	}
	if kind := apiErrorKind(line); kind != "" {
		// The CLI's words for a failed model call, dressed as an answer:
		// they end the turn as its error event instead (onResult).
		s.stream.apiError = kind
		s.log.Info("claude: the model call failed", zap.String("error", kind))
		return
	}
	s.stream.emitted[m.ID] = true
	s.em.Emit(runtimes.MessageCompleted{Message: kit.CapMessage(m)})
}

// onResult ends the turn, unless the CLI ran that turn on its own: the
// user's turn then goes on, its prompt still queued in the CLI.
func (s *session) onResult(line []byte) {
	var r struct {
		Subtype      string    `json:"subtype"`
		IsError      bool      `json:"is_error"`
		Result       string    `json:"result"`
		Errors       []string  `json:"errors"`
		APIStatus    *int      `json:"api_error_status"`
		StopReason   string    `json:"stop_reason"`
		DurationMS   int64     `json:"duration_ms"`
		TotalCostUSD *float64  `json:"total_cost_usd"`
		Usage        rpc.Usage `json:"usage"`
		Origin       struct {
			Kind string `json:"kind"`
		} `json:"origin"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		s.log.Warn("ignored a malformed result", zap.Error(err))
		return
	}
	// Counted either way, so that the next turn's cost excludes it.
	cost := s.stream.turnCost(r.TotalCostUSD)
	if c, ok := s.stream.contextAt(line); ok {
		s.em.Emit(runtimes.ContextUpdated{Context: c})
	}
	apiError := s.stream.apiError
	s.stream.apiError = ""
	if !s.turn.Busy() {
		s.log.Debug("ignored a result outside a turn", zap.String("subtype", r.Subtype))
		return
	}
	if cliInitiated(r.Origin.Kind) {
		s.log.Debug("a turn the CLI started itself ended", zap.String("origin", r.Origin.Kind),
			zap.String("subtype", r.Subtype))
		return
	}
	switch {
	case r.IsError && s.turn.Interrupted():
		s.turn.End(runtimes.TurnFailed{Code: runtimes.CodeInterrupted, Message: "interrupted"})
	case r.IsError:
		msg := r.Result
		if msg == "" {
			msg = strings.Join(r.Errors, "; ")
		}
		if msg == "" {
			msg = r.Subtype
		}
		code := errorCode(r.APIStatus, apiError)
		if code == runtimes.CodeAuthRequired {
			s.reportAuth(msg)
		}
		s.turn.End(runtimes.TurnFailed{Code: code, Message: msg})
	default:
		s.turn.End(runtimes.TurnCompleted{Usage: r.Usage, CostUSD: cost,
			StopReason: r.StopReason, DurationMS: r.DurationMS})
	}
}

// apiErrorKind is the "error" of an assistant line the CLI made up for a
// failed model call (model "<synthetic>"), "" for a real message.
func apiErrorKind(line []byte) string {
	var l struct {
		Error   string `json:"error"`
		Message struct {
			Model string `json:"model"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil || l.Message.Model != "<synthetic>" {
		return ""
	}
	return l.Error
}

// errorCode classifies an error result: by its api_error_status when the
// API answered, else by the error kind of the synthetic assistant message
// before it (2.1.197: authentication_failed, billing_error, rate_limit,
// invalid_request, server_error, unknown). A failed model call without a
// status never got an HTTP answer: the API is unreachable (connection
// refused gives server_error, status null). A result without either is not
// a model call failing (runtime_error).
func errorCode(status *int, kind string) string {
	if status != nil && *status > 0 {
		return runtimes.CodeForHTTPStatus(*status)
	}
	switch kind {
	case "":
		return runtimes.CodeRuntimeError
	case "authentication_failed":
		return runtimes.CodeAuthRequired
	case "rate_limit", "billing_error":
		return runtimes.CodeRateLimited
	case "invalid_request", "max_output_tokens":
		return runtimes.CodeRefused
	}
	return runtimes.CodeUnreachable
}

// reportAuth is THE place where a Claude turn revealed a login problem
// (auth_required). Hook for the registry (issue 24, item 4): wire the
// "login problem -> flip the runtime's record" call here; for now it logs.
func (s *session) reportAuth(reason string) {
	s.log.Warn("claude: not logged in, or its credentials were refused", zap.String("reason", reason))
}

// cliInitiated reports whether a result's origin marks a turn the CLI ran
// on its own rather than for a prompt cdevd wrote: a background command
// ending (origin "task-notification"; on --resume also one killed with the
// previous process, reported at once with no model call), a scheduled
// wakeup and the like. The CLI copies the origin of the command that
// started the turn into its result; prompts read from stdin have none
// (2.1.197), and "human" is what its own prompt box uses.
func cliInitiated(kind string) bool { return kind != "" && kind != "human" }

// turnCost is the part of the running total spent since the last result.
// The total only grows (error results may report 0), and the difference is
// rounded to a billionth of a dollar to drop float noise. A huge total is
// not rounded: scaling it would overflow to +Inf, which JSON cannot encode,
// and the turn_completed carrying it would be lost (found by fuzzing).
func (st *streamState) turnCost(total *float64) *float64 {
	if total == nil {
		return nil
	}
	c := max(*total-st.totalCost, 0)
	if r := math.Round(c*1e9) / 1e9; !math.IsInf(r, 0) {
		c = r
	}
	st.totalCost = max(st.totalCost, *total)
	return &c
}

func (s *session) onSystem(h header, line []byte) {
	switch h.Subtype {
	case "init":
		var l struct {
			Model          string `json:"model"`
			Cwd            string `json:"cwd"`
			PermissionMode string `json:"permissionMode"`
			Version        string `json:"claude_code_version"`
		}
		_ = json.Unmarshal(line, &l)
		if h.SessionID != s.id {
			s.log.Warn("claude runs under another session id", zap.String("cli_session", h.SessionID))
		}
		s.log.Info("claude session initialized", zap.String("model", l.Model), zap.String("cwd", l.Cwd),
			zap.String("permission_mode", l.PermissionMode), zap.String("version", l.Version))
	case "api_retry":
		s.log.Warn("claude retries the model API", zap.ByteString("line", excerpt(line, 300)))
		var l struct {
			Attempt    int    `json:"attempt"`
			MaxRetries int    `json:"max_retries"`
			Status     *int   `json:"error_status"`
			Error      string `json:"error"`
		}
		if json.Unmarshal(line, &l) == nil {
			s.turn.Retrying(rpc.Retry{Attempt: l.Attempt, MaxAttempts: l.MaxRetries,
				Code: errorCode(l.Status, l.Error), Message: l.Error})
		}
	default:
		s.log.Debug("system line", zap.String("subtype", h.Subtype))
	}
}

// onControlRequest handles the CLI asking cdevd something: only tool
// permission (which includes AskUserQuestion) is supported; anything else is
// refused at once so that the CLI never waits for an answer.
func (s *session) onControlRequest(line []byte) (reply any) {
	var l struct {
		RequestID string `json:"request_id"`
		Request   struct {
			Subtype     string          `json:"subtype"`
			ToolName    string          `json:"tool_name"`
			Input       json.RawMessage `json:"input"`
			Description string          `json:"description"`
		} `json:"request"`
	}
	if err := json.Unmarshal(line, &l); err != nil || l.RequestID == "" {
		s.log.Warn("ignored a malformed control_request", zap.ByteString("line", excerpt(line, 300)))
		return nil
	}
	req := l.Request
	if req.Subtype != "can_use_tool" {
		s.log.Info("refused an unsupported control request", zap.String("subtype", req.Subtype))
		return controlError(l.RequestID, "cdevd does not support control request "+req.Subtype)
	}
	if len(req.Input) == 0 || string(req.Input) == "null" {
		req.Input = json.RawMessage("{}")
	}
	p := &prompt{toolName: req.ToolName, input: req.Input}
	ev := runtimes.PromptRequested{RequestID: l.RequestID}
	switch {
	case req.ToolName == askUserQuestion:
		q, err := questionPrompt(req.Input)
		if err != nil {
			return controlError(l.RequestID, "cdevd cannot show this question: "+err.Error())
		}
		p.question, ev.Question = q, q
	case s.allowed[req.ToolName]:
		s.log.Debug("allowed without asking: allowed for the session", zap.String("tool", req.ToolName))
		return controlSuccess(l.RequestID, allow(req.Input))
	default:
		ev.Permission = permissionPrompt(req.ToolName, req.Input, req.Description)
	}
	if !s.turn.Prompt(ev, p) {
		return controlError(l.RequestID, "cdevd already has an open request with this id")
	}
	return nil
}

// onControlCancel withdraws a prompt the CLI no longer waits for.
func (s *session) onControlCancel(line []byte) {
	var l struct {
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal(line, &l)
	s.turn.Cancel(l.RequestID)
}

// onControlResponse is the CLI's answer to our control requests: a
// configuration change (configure.go) or an interrupt.
func (s *session) onControlResponse(line []byte) {
	var l struct {
		Response struct {
			Subtype   string `json:"subtype"`
			RequestID string `json:"request_id"`
			Error     string `json:"error"`
		} `json:"response"`
	}
	_ = json.Unmarshal(line, &l)
	refusal := ""
	if l.Response.Subtype == "error" {
		refusal = l.Response.Error
	}
	if s.answeredLocked(l.Response.RequestID, refusal) {
		return
	}
	if l.Response.Subtype == "error" {
		s.log.Warn("claude refused a control request", zap.String("request", l.Response.RequestID),
			zap.String("error", l.Response.Error))
	}
}

func controlSuccess(id string, response any) map[string]any {
	return map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": response}}
}

func controlError(id, msg string) map[string]any {
	return map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "error", "request_id": id, "error": msg}}
}

// excerpt bounds what a log line quotes of the CLI's output.
func excerpt(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[:n]
}
