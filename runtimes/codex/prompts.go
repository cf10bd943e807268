package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/codex/rollout"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// Permission option keys, the responses clients send.
const (
	keyYes    = "yes"
	keyAlways = "always"
	keyNo     = "no"
)

var permissionOptions = []rpc.Option{
	{Key: keyYes, Label: "Allow once"},
	{Key: keyAlways, Label: "Allow for this session"},
	{Key: keyNo, Label: "Deny"},
}

// prompt is a server request waiting for the user: the request to reply to
// and, for a question, the ids Codex expects the answers under.
type prompt struct {
	req         *stdiorpc.Request
	questionIDs []string // nil for a permission
	questions   []rpc.Question
}

// requestID is a server request's id as clients see it: Codex's integer
// ids (from 0 per process) in decimal, a string id as it is.
func requestID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// onRequest turns Codex's approval and question requests into prompts. It
// runs on the peer's dispatch goroutine and never blocks: the reply is sent
// by Respond, whenever the user answers.
func (s *session) onRequest(r *stdiorpc.Request) {
	var ev runtimes.PromptRequested
	pr := &prompt{req: r}
	switch r.Method {
	case "item/commandExecution/requestApproval":
		var p struct {
			Command string  `json:"command"`
			Cwd     string  `json:"cwd"`
			Reason  *string `json:"reason"`
		}
		if err := json.Unmarshal(r.Params, &p); err != nil {
			s.refuse(r, err)
			return
		}
		ev.Permission = commandPrompt(p.Command, p.Cwd, p.Reason)
	case "item/fileChange/requestApproval":
		var p struct {
			ItemID string  `json:"itemId"`
			Reason *string `json:"reason"`
		}
		if err := json.Unmarshal(r.Params, &p); err != nil {
			s.refuse(r, err)
			return
		}
		var item struct {
			Changes []rollout.ChangeEntry `json:"changes"`
		}
		_ = json.Unmarshal(s.items[p.ItemID], &item)
		ev.Permission = fileChangePrompt(item.Changes, p.Reason)
	case "item/tool/requestUserInput":
		var p struct {
			Questions []struct {
				ID       string `json:"id"`
				Header   string `json:"header"`
				Question string `json:"question"`
				Options  []struct {
					Label       string `json:"label"`
					Description string `json:"description"`
				} `json:"options"`
			} `json:"questions"`
		}
		if err := json.Unmarshal(r.Params, &p); err != nil || len(p.Questions) == 0 {
			s.refuse(r, fmt.Errorf("no questions (%v)", err))
			return
		}
		q := &runtimes.QuestionPrompt{}
		for _, iq := range p.Questions {
			rq := rpc.Question{Question: iq.Question, Header: iq.Header}
			for i, o := range iq.Options {
				rq.Options = append(rq.Options, rpc.Option{Key: strconv.Itoa(i + 1), Label: o.Label, Description: o.Description})
			}
			q.Questions = append(q.Questions, rq)
			pr.questionIDs = append(pr.questionIDs, iq.ID)
		}
		pr.questions = q.Questions
		ev.Question = q
	default:
		_ = r.ReplyError(&stdiorpc.Error{Code: -32601, Message: "cdevd does not handle " + r.Method})
		return
	}
	ev.RequestID = requestID(r.ID)
	if !s.turn.Prompt(ev, pr) {
		s.refuse(r, errors.New("request id already pending, or the process has exited"))
	}
}

// refuse answers a request cdevd cannot put to the user, so that Codex does
// not wait forever: an approval is declined, anything else gets an error.
func (s *session) refuse(r *stdiorpc.Request, why error) {
	s.log.Warn("codex: request refused", zap.String("method", r.Method), zap.Error(why))
	if strings.HasSuffix(r.Method, "/requestApproval") {
		_ = r.Reply(map[string]string{"decision": "decline"})
		return
	}
	_ = r.ReplyError(&stdiorpc.Error{Code: -32602, Message: "cdevd: " + why.Error()})
}

// commandPrompt describes a command for the user to allow or deny.
func commandPrompt(command, cwd string, reason *string) *runtimes.PermissionPrompt {
	script := rollout.CommandText(splitCommand(command))
	desc := "Codex wants to run a command"
	if reason != nil && *reason != "" {
		desc = *reason
	}
	preview := script
	if cwd != "" {
		preview = "$ " + script + "\n(in " + cwd + ")"
	}
	return &runtimes.PermissionPrompt{Kind: rpc.PermBash, ToolName: rollout.CommandTool, Target: script,
		Description: desc, Preview: preview, Options: permissionOptions}
}

// fileChangePrompt describes a patch: its paths as the target, its diffs as
// the preview; a patch that only adds files is a write, anything else an edit.
func fileChangePrompt(changes []rollout.ChangeEntry, reason *string) *runtimes.PermissionPrompt {
	kind := rpc.PermWrite
	var paths, diffs []string
	for _, c := range changes {
		paths = append(paths, c.Path)
		diffs = append(diffs, c.Diff)
		if c.Kind.Type != "add" {
			kind = rpc.PermEdit
		}
	}
	desc := "Codex wants to change files"
	if reason != nil && *reason != "" {
		desc = *reason
	}
	return &runtimes.PermissionPrompt{Kind: kind, ToolName: rollout.PatchTool, Target: strings.Join(paths, ", "),
		Description: desc, Preview: strings.Join(diffs, "\n"), Options: permissionOptions}
}

// Respond answers a pending approval or question.
func (s *session) Respond(_ context.Context, id string, a runtimes.Answer) error {
	var req *stdiorpc.Request
	err := s.turn.Answer(id, func(data any) (any, error) {
		pr := data.(*prompt)
		req = pr.req
		return pr.answer(a)
	}, func(result any) error { return req.Reply(result) })
	switch {
	case errors.Is(err, stdiorpc.ErrClosed):
		return fmt.Errorf("codex: answer %s: %w", id, runtimes.ErrExited)
	case err != nil && req != nil:
		return fmt.Errorf("codex: answer %s: %w", id, err)
	}
	return err
}

// resolved is serverRequest/resolved: Codex no longer waits for request id.
// After our own answer that is expected (the kit ignores a cancel of a
// prompt being answered); otherwise (an interrupt) the prompt is withdrawn.
func (s *session) resolved(id string) {
	s.turn.Cancel(id)
}

// answer is the reply Codex expects for a.
func (p *prompt) answer(a runtimes.Answer) (any, error) {
	if p.questionIDs != nil {
		return p.answers(a.Text)
	}
	decision := map[runtimes.Decision]string{
		runtimes.Allow:       "accept",
		runtimes.AllowAlways: "acceptForSession",
		runtimes.Deny:        "decline",
	}[a.Decision]
	if decision == "" {
		return nil, fmt.Errorf("codex: %q is no permission decision (want %s, %s or %s)",
			a.Decision, runtimes.Allow, runtimes.AllowAlways, runtimes.Deny)
	}
	return map[string]string{"decision": decision}, nil
}

// answers is a question reply: {answers: {<question id>: {answers: [text]}}}.
// An option key ("1", "2", …) or label picks that option; anything else is
// free text, which Codex allows. With several questions, text has one line
// per question; otherwise it answers each of them.
func (p *prompt) answers(text string) (any, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("codex: empty answer")
	}
	lines := strings.Split(text, "\n")
	out := make(map[string]any, len(p.questionIDs))
	for i, qid := range p.questionIDs {
		t := text
		if len(lines) == len(p.questionIDs) {
			t = strings.TrimSpace(lines[i])
		}
		out[qid] = map[string][]string{"answers": {choice(p.questions[i], t)}}
	}
	return map[string]any{"answers": out}, nil
}

// choice resolves an option key or label to the label.
func choice(q rpc.Question, t string) string {
	for _, o := range q.Options {
		if t == o.Key || strings.EqualFold(t, o.Label) {
			return o.Label
		}
	}
	return t
}
