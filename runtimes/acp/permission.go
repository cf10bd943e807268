package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// Option keys clients answer with: the first option of each ACP kind gets
// the protocol's yes / always / no; any further one keeps the agent's
// optionId as its key.
const (
	keyYes    = "yes"
	keyAlways = "always"
	keyNo     = "no"
)

var kindKeys = map[sdk.PermissionOptionKind]string{
	sdk.PermissionOptionKindAllowOnce:    keyYes,
	sdk.PermissionOptionKindAllowAlways:  keyAlways,
	sdk.PermissionOptionKindRejectOnce:   keyNo,
	sdk.PermissionOptionKindRejectAlways: keyNo,
}

// maxPreview bounds the text a permission prompt shows of a tool's input.
const maxPreview = 16 << 10

// permission is a request the agent waits on: the request to answer and
// the options as clients see them, by key.
type permission struct {
	req      *stdiorpc.Request
	options  map[string]sdk.PermissionOption
	toolCall string // the id of the tool call it asks about
}

// requestID is an agent request's id as clients see it: an integer (0
// included) in decimal, a string as it is.
func requestID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

var cancelledOutcome = sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
	Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}

// onRequest turns session/request_permission into a prompt; cdevd offers
// the agent no file system and no terminal, so any other request is
// refused. It runs on the peer's dispatch goroutine and never blocks: the
// reply is sent by Respond or Interrupt.
func (s *session) onRequest(r *stdiorpc.Request) {
	if r.Method != "session/request_permission" {
		_ = r.ReplyError(&stdiorpc.Error{Code: -32601, Message: "cdevd does not offer " + r.Method})
		return
	}
	var p sdk.RequestPermissionRequest
	if err := json.Unmarshal(r.Params, &p); err != nil || len(p.Options) == 0 {
		s.log.Warn("agent: permission request refused", zap.Error(err), zap.Int("options", len(p.Options)))
		_ = s.reply(r, cancelledOutcome)
		return
	}
	tc := p.ToolCall
	title := ""
	if tc.Title != nil {
		title = *tc.Title
	}
	// The request is the tool call's only announcement (Gemini sends no
	// tool_call before it).
	s.toolCall(string(tc.ToolCallId), title, tc.Kind, tc.RawInput, tc.Content)
	s.heard(string(tc.ToolCallId), toolOpened)
	perm := &permission{req: r, options: map[string]sdk.PermissionOption{}, toolCall: string(tc.ToolCallId)}
	prompt := permissionPrompt(s.a.spec.DisplayName, tc, title)
	for _, o := range p.Options {
		key := kindKeys[o.Kind]
		if _, taken := perm.options[key]; key == "" || taken {
			key = string(o.OptionId)
		}
		if _, taken := perm.options[key]; taken {
			continue // an agent that repeats an option id
		}
		perm.options[key] = o
		prompt.Options = append(prompt.Options, rpc.Option{Key: key, Label: o.Name})
	}
	id := requestID(r.ID)
	s.mu.Lock()
	s.prompts[id] = perm
	s.mu.Unlock()
	if !s.turn.Prompt(runtimes.PromptRequested{RequestID: id, Permission: prompt}, perm) {
		s.mu.Lock()
		delete(s.prompts, id)
		s.mu.Unlock()
		s.log.Warn("agent: permission request refused: its id is already pending, or the process has exited", zap.String("id", id))
		_ = s.reply(r, cancelledOutcome)
	}
}

// permissionPrompt describes the tool call for the user.
func permissionPrompt(agent string, tc sdk.ToolCallUpdate, title string) *runtimes.PermissionPrompt {
	kind := sdk.ToolKindOther
	if tc.Kind != nil {
		kind = *tc.Kind
	}
	pp := &runtimes.PermissionPrompt{Kind: rpc.PermToolUse, ToolName: string(kind), Target: title,
		Description: fmt.Sprintf("%s wants to use a tool: %s", agent, title)}
	var preview []string
	for _, c := range tc.Content {
		switch {
		case c.Content != nil && c.Content.Content.Text != nil:
			preview = append(preview, c.Content.Content.Text.Text)
		case c.Diff != nil:
			preview = append(preview, "--- "+c.Diff.Path+"\n"+c.Diff.NewText)
		}
	}
	switch kind {
	case sdk.ToolKindExecute:
		pp.Kind = rpc.PermBash
		pp.Description = fmt.Sprintf("%s wants to run a command", agent)
	case sdk.ToolKindEdit, sdk.ToolKindDelete, sdk.ToolKindMove:
		pp.Kind = rpc.PermEdit
		for _, c := range tc.Content {
			if c.Diff != nil && (c.Diff.OldText == nil || *c.Diff.OldText == "") && kind == sdk.ToolKindEdit {
				pp.Kind = rpc.PermWrite // a new file
			}
		}
		pp.Description = fmt.Sprintf("%s wants to change files", agent)
	case sdk.ToolKindRead:
		pp.Kind = rpc.PermRead
	}
	var paths []string
	for _, l := range tc.Locations {
		paths = append(paths, l.Path)
	}
	if len(paths) > 0 && kind != sdk.ToolKindExecute {
		pp.Target = strings.Join(paths, ", ")
	}
	pp.Preview = strings.Join(preview, "\n")
	if len(pp.Preview) > maxPreview {
		pp.Preview = pp.Preview[:maxPreview] + "\n…"
	}
	return pp
}

// Respond answers a pending permission request with the option the answer
// names: a key or option id as text, else the first option of the
// decision's kind.
func (s *session) Respond(_ context.Context, id string, a runtimes.Answer) error {
	var req *stdiorpc.Request
	var refused string // the tool call a reject option refuses
	err := s.turn.Answer(id, func(data any) (any, error) {
		p, ok := data.(*permission)
		if !ok {
			return nil, fmt.Errorf("%s: request %s is not a permission request", s.a.spec.ID, id)
		}
		req = p.req
		o, err := p.choose(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.a.spec.ID, err)
		}
		if o.Kind == sdk.PermissionOptionKindRejectOnce || o.Kind == sdk.PermissionOptionKindRejectAlways {
			refused = p.toolCall
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
			Selected: &sdk.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: o.OptionId}}}, nil
	}, func(msg any) error {
		// The refused call's result goes out before the answer: sent
		// after it, it raced the agent, which may end the turn at once,
		// and came after the turn's end.
		if refused != "" {
			s.notRun(refused, "The user rejected this tool call.")
		}
		return s.reply(req, msg)
	})
	if err == nil {
		s.mu.Lock()
		delete(s.prompts, id)
		s.mu.Unlock()
	}
	if errors.Is(err, stdiorpc.ErrClosed) {
		return fmt.Errorf("%s: answer %s: %w", s.a.spec.ID, id, runtimes.ErrExited)
	}
	return err
}

// choose is the option an answer selects.
func (p *permission) choose(a runtimes.Answer) (sdk.PermissionOption, error) {
	if t := strings.TrimSpace(a.Text); t != "" {
		if o, ok := p.options[t]; ok {
			return o, nil
		}
		for _, o := range p.options {
			if string(o.OptionId) == t || strings.EqualFold(o.Name, t) {
				return o, nil
			}
		}
		return sdk.PermissionOption{}, fmt.Errorf("%q is not one of the options offered (%s)", t, strings.Join(p.keys(), ", "))
	}
	key := map[runtimes.Decision]string{runtimes.Allow: keyYes, runtimes.AllowAlways: keyAlways, runtimes.Deny: keyNo}[a.Decision]
	if key == "" {
		return sdk.PermissionOption{}, fmt.Errorf("%q is no permission decision (want %s, %s or %s)",
			a.Decision, runtimes.Allow, runtimes.AllowAlways, runtimes.Deny)
	}
	o, ok := p.options[key]
	if !ok {
		return sdk.PermissionOption{}, fmt.Errorf("the agent offers no %q option here (offered: %s)", key, strings.Join(p.keys(), ", "))
	}
	return o, nil
}

func (p *permission) keys() []string {
	var ks []string
	for k := range p.options {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// cancelPrompts answers every open permission request cancelled, as ACP
// asks of a client that cancels the turn.
func (s *session) cancelPrompts() {
	s.mu.Lock()
	open := s.prompts
	s.prompts = map[string]*permission{}
	s.mu.Unlock()
	for id, p := range open {
		if s.turn.Cancel(id) {
			_ = s.reply(p.req, cancelledOutcome)
			s.notRun(p.toolCall, "Cancelled before it ran.")
		} else {
			// Being answered: the answer is on its way.
			s.mu.Lock()
			s.prompts[id] = p
			s.mu.Unlock()
		}
	}
}
