package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// askUserQuestion is the CLI tool whose permission request is really a
// question for the user; it is answered by allowing it with the answers
// added to its input.
const askUserQuestion = "AskUserQuestion"

// previewLimit bounds a permission preview: enough to judge a command or an
// edit on a phone, not a whole file.
const previewLimit = 4 << 10

// denyMessage is what the model is told when the user says no.
const denyMessage = "The user denied permission for this tool call."

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

// targetKeys are the input fields that name what a tool acts on, in order
// of preference.
var targetKeys = []string{"command", "file_path", "notebook_path", "url", "pattern", "query", "path"}

// permissionPrompt describes a tool call for the user to allow or deny.
func permissionPrompt(tool string, input json.RawMessage, cliDescription string) *runtimes.PermissionPrompt {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }

	p := &runtimes.PermissionPrompt{Kind: rpc.PermToolUse, ToolName: tool, Options: permissionOptions}
	for _, k := range targetKeys {
		if p.Target = str(k); p.Target != "" {
			break
		}
	}
	switch tool {
	case "Bash":
		p.Kind, p.Description, p.Preview = rpc.PermBash, "Run a shell command", str("command")
	case "Write":
		p.Kind, p.Description, p.Preview = rpc.PermWrite, "Write "+p.Target, str("content")
	case "Edit":
		p.Kind, p.Description, p.Preview = rpc.PermEdit, "Edit "+p.Target, diff(str("old_string"), str("new_string"))
	case "MultiEdit":
		p.Kind, p.Description = rpc.PermEdit, "Edit "+p.Target
		var m struct {
			Edits []struct {
				Old string `json:"old_string"`
				New string `json:"new_string"`
			} `json:"edits"`
		}
		_ = json.Unmarshal(input, &m)
		var parts []string
		for _, e := range m.Edits {
			parts = append(parts, diff(e.Old, e.New))
		}
		p.Preview = strings.Join(parts, "\n")
	case "NotebookEdit":
		p.Kind, p.Description, p.Preview = rpc.PermEdit, "Edit "+p.Target, str("new_source")
	case "Read":
		p.Kind, p.Description = rpc.PermRead, "Read "+p.Target
	default:
		if strings.HasPrefix(tool, "mcp__") {
			p.Kind = rpc.PermMCP
		}
		p.Description = cliDescription
		if p.Description == "" {
			p.Description = "Use " + tool
		}
		if p.Target == "" {
			p.Target = tool
		}
		p.Preview = string(input)
	}
	// The model's own explanation of a call (Bash has one) says more than
	// the generic description.
	if d := str("description"); d != "" {
		p.Description = d
	}
	if cut := rpc.TruncateUTF8(p.Preview, previewLimit); len(cut) < len(p.Preview) {
		p.Preview = cut + "\n…"
	}
	return p
}

// diff shows an edit as removed and added lines.
func diff(before, after string) string {
	var sb strings.Builder
	for _, l := range strings.Split(before, "\n") {
		sb.WriteString("- " + l + "\n")
	}
	for _, l := range strings.Split(after, "\n") {
		sb.WriteString("+ " + l + "\n")
	}
	return sb.String()
}

// askInput is AskUserQuestion's input.
type askInput struct {
	Questions []struct {
		Question string `json:"question"`
		Header   string `json:"header"`
		Options  []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
		MultiSelect bool `json:"multiSelect"`
	} `json:"questions"`
}

// questionPrompt shows AskUserQuestion's questions. Options are keyed by
// their position ("1", "2", …), as a terminal user would pick them.
func questionPrompt(input json.RawMessage) (*runtimes.QuestionPrompt, error) {
	var in askInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	if len(in.Questions) == 0 {
		return nil, errors.New("no questions")
	}
	q := &runtimes.QuestionPrompt{}
	for _, iq := range in.Questions {
		rq := rpc.Question{Question: iq.Question, Header: iq.Header, MultiSelect: iq.MultiSelect}
		for i, o := range iq.Options {
			rq.Options = append(rq.Options, rpc.Option{Key: strconv.Itoa(i + 1), Label: o.Label, Description: o.Description})
		}
		q.Questions = append(q.Questions, rq)
	}
	return q, nil
}

// answer builds the control response for a's answer to p, and reports
// whether the tool is now allowed for the rest of the session.
func (p *prompt) answer(a runtimes.Answer) (response any, always bool, err error) {
	if p.question != nil {
		in, err := p.withAnswers(a.Text)
		if err != nil {
			return nil, false, err
		}
		return allow(in), false, nil
	}
	switch a.Decision {
	case runtimes.Allow:
		return allow(p.input), false, nil
	case runtimes.AllowAlways:
		r := allow(p.input)
		// The CLI keeps a session-scoped rule, so it stops asking.
		r["updatedPermissions"] = []map[string]any{{
			"type": "addRules", "behavior": "allow", "destination": "session",
			"rules": []map[string]string{{"toolName": p.toolName}},
		}}
		return r, true, nil
	case runtimes.Deny:
		return map[string]any{"behavior": "deny", "message": denyMessage}, false, nil
	}
	return nil, false, fmt.Errorf("claude: %q is no permission decision (want %s, %s or %s)",
		a.Decision, runtimes.Allow, runtimes.AllowAlways, runtimes.Deny)
}

func allow(input json.RawMessage) map[string]any {
	return map[string]any{"behavior": "allow", "updatedInput": input}
}

// withAnswers is the question tool's input with the user's answers added,
// which is how the CLI expects them: question text → answer, several
// choices comma-separated. With several questions, text has one line per
// question; otherwise it answers each of them.
func (p *prompt) withAnswers(text string) (json.RawMessage, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("claude: empty answer")
	}
	qs := p.question.Questions
	lines := strings.Split(text, "\n")
	answers := make(map[string]string, len(qs))
	for i, q := range qs {
		t := text
		if len(lines) == len(qs) {
			t = strings.TrimSpace(lines[i])
		}
		if !q.MultiSelect {
			answers[q.Question] = choice(q, t)
			continue
		}
		var picked []string
		for _, part := range strings.Split(t, ",") {
			picked = append(picked, choice(q, strings.TrimSpace(part)))
		}
		answers[q.Question] = strings.Join(picked, ", ")
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(p.input, &in); err != nil {
		return nil, err
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	in["answers"] = b
	return json.Marshal(in)
}

// choice resolves an option key or label to the label; anything else is a
// free-text answer, which the CLI accepts too.
func choice(q rpc.Question, t string) string {
	for _, o := range q.Options {
		if t == o.Key || strings.EqualFold(t, o.Label) {
			return o.Label
		}
	}
	return t
}
