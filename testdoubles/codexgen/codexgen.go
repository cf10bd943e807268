// Package codexgen writes synthetic Codex CLI rollouts: the JSONL files
// Codex keeps under $CODEX_HOME/sessions/YYYY/MM/DD, in the shapes of the
// rollouts the pinned CLI writes (a session_meta carrying the instructions,
// the turn's context lines, then per turn the prompt, reasoning, a command,
// its output, the answer and the accounting lines around them). It is what
// `cdevd bench` measures Codex history on.
package codexgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Gen produces the lines of one rollout. Use New.
type Gen struct {
	ThreadID string
	Cwd      string
	// Pad is appended to answers and command outputs, to reach a size with
	// realistic lines.
	Pad string
	// Instructions stands for the base instructions Codex writes into
	// session_meta (about 20 kB in the pinned CLI).
	Instructions string

	ord, turns, msgs int
}

// New returns a generator for thread id run in cwd.
func New(id, cwd string) *Gen {
	return &Gen{ThreadID: id, Cwd: cwd, Instructions: strings.Repeat("You are Codex, a coding agent. ", 650)}
}

// Path is where Codex keeps the rollout of the generator's thread under
// codexHome.
func (g *Gen) Path(codexHome string) string {
	return filepath.Join(codexHome, "sessions", "2026", "11", "23", "rollout-2026-11-23T00-50-55-"+g.ThreadID+".jsonl")
}

// Messages is how many of the lines written so far are messages to cdevd.
func (g *Gen) Messages() int { return g.msgs }

func str(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// line formats one rollout line with the next ordinal.
func (g *Gen) line(typ, payload string) string {
	i := g.ord
	g.ord++
	return fmt.Sprintf(`{"timestamp":"2026-11-23T%02d:%02d:%02d.%03dZ","ordinal":%d,"type":%q,"payload":%s}`,
		i/3600000%24, i/60000%60, i/1000%60, i%1000, i, typ, payload)
}

// Header returns the lines Codex writes before the first prompt.
func (g *Gen) Header() []string {
	id, cwd := str(g.ThreadID), str(g.Cwd)
	return []string{
		g.line("session_meta", fmt.Sprintf(`{"account_scoped":true,"session_id":%s,"id":%s,"timestamp":"2026-11-23T00:50:55.626Z","cwd":%s,"runtime_workspace_roots":[%s],"originator":"codex_exec","cli_version":"0.169.0","source":"exec","thread_source":"user","model_provider":"openai","base_instructions":{"text":%s}}`,
			id, id, cwd, cwd, str(g.Instructions))),
		g.line("response_item", fmt.Sprintf(`{"type":"message","id":"msg_dev_%s","role":"developer","content":[{"type":"input_text","text":%s}]}`,
			g.ThreadID, str("<skills_instructions>\n"+strings.Repeat("A skill is a set of local instructions. ", 140)+"</skills_instructions>"))),
		g.line("response_item", fmt.Sprintf(`{"type":"message","id":"msg_env_%s","role":"user","content":[{"type":"input_text","text":%s}]}`,
			g.ThreadID, str("<environment_context>\n  <cwd>"+g.Cwd+"</cwd>\n  <shell>bash</shell>\n</environment_context>"))),
		g.line("turn_context", fmt.Sprintf(`{"turn_id":"turn_0","cwd":%s,"approval_policy":"never","permission_profile":{"type":"disabled"},"model":"gpt-5.5","summary":"none","sandbox_policy":{"type":"danger-full-access"}}`, cwd)),
		g.line("event_msg", fmt.Sprintf(`{"type":"thread_settings_applied","thread_id":%s,"thread_settings":{"model":"gpt-5.5","approval_policy":"never","cwd":%s}}`, id, cwd)),
	}
}

// Turn returns the next turn's lines: the prompt, then reasoning and a
// command (every other turn), then the answer, with the lines around them
// that are not messages.
func (g *Gen) Turn() []string {
	t := g.turns
	g.turns++
	id := str(g.ThreadID)
	turn := fmt.Sprintf(`"thread_id":%s,"turn_id":"turn_%d"`, id, t)
	prompt := fmt.Sprintf("prompt %d", t)
	usage := `{"input_tokens":6826,"cached_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":6831}`
	out := []string{
		g.line("event_msg", fmt.Sprintf(`{"type":"task_started","turn_id":"turn_%d"}`, t)),
		g.line("response_item", fmt.Sprintf(`{"type":"message","id":"msg_in_%d","role":"user","content":[{"type":"input_text","text":%s}]}`, t, str(prompt))),
		g.line("event_msg", fmt.Sprintf(`{"type":"item_completed",%s,"item":{"type":"UserMessage","id":"user_%d","content":[{"type":"text","text":%s,"text_elements":[]}]}}`, turn, t, str(prompt))),
	}
	g.msgs++
	if t%2 == 1 {
		cmd := fmt.Sprintf("echo step %d", t)
		out = append(out,
			g.line("event_msg", fmt.Sprintf(`{"type":"item_completed",%s,"item":{"type":"Reasoning","id":"rs_%d","summary_text":["Thinking about step %d."],"raw_content":[]}}`, turn, t, t)),
			g.line("response_item", fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":"Thinking about step %d."}],"content":null,"encrypted_content":null}`, t, t)),
			g.line("response_item", fmt.Sprintf(`{"type":"function_call","status":"completed","id":"fc_%d","name":"exec_command","arguments":%s,"call_id":"call_%d"}`, t, str(`{"cmd":"`+cmd+`"}`), t)),
			g.line("token_usage_record", fmt.Sprintf(`{%s,"response_id":"resp_%d_1","usage":%s}`, turn, t, usage)),
			g.line("event_msg", fmt.Sprintf(`{"type":"item_completed",%s,"item":{"type":"CommandExecution","id":"call_%d","command":["/bin/bash","-lc",%s],"cwd":%s,"status":"completed","aggregated_output":%s,"exit_code":0,"duration":{"secs":0,"nanos":30475}}}`,
				turn, t, str(cmd), str("file://"+g.Cwd), str(fmt.Sprintf("step %d\n%s", t, g.Pad)))),
			g.line("response_item", fmt.Sprintf(`{"type":"function_call_output","id":"fco_%d","call_id":"call_%d","output":%s}`, t, t, str(fmt.Sprintf("Process exited with code 0\nOutput:\nstep %d\n%s", t, g.Pad)))),
			g.line("event_msg", fmt.Sprintf(`{"type":"token_count","info":{"total_token_usage":%s,"last_token_usage":%s}}`, usage, usage)),
		)
		g.msgs += 2
	}
	answer := fmt.Sprintf("answer %d%s", t, g.Pad)
	out = append(out,
		g.line("event_msg", fmt.Sprintf(`{"type":"item_completed",%s,"item":{"type":"AgentMessage","id":"msg_%d","content":[{"type":"Text","text":%s}]}}`, turn, t, str(answer))),
		g.line("response_item", fmt.Sprintf(`{"type":"message","status":"completed","id":"msg_%d","role":"assistant","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, t, str(answer))),
		g.line("token_usage_record", fmt.Sprintf(`{%s,"response_id":"resp_%d_2","usage":%s}`, turn, t, usage)),
		g.line("event_msg", fmt.Sprintf(`{"type":"token_count","info":{"total_token_usage":%s,"last_token_usage":%s}}`, usage, usage)),
		g.line("event_msg", fmt.Sprintf(`{"type":"task_complete","turn_id":"turn_%d","last_agent_message":%s}`, t, str(answer))),
	)
	g.msgs++
	return out
}

// Write writes the header and then turns to path until the file holds at
// least size bytes or lines lines, whichever is set.
func (g *Gen) Write(path string, size int64, lines int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	put := func(ls []string) {
		for _, l := range ls {
			k, _ := w.WriteString(l + "\n")
			n += int64(k)
		}
	}
	put(g.Header())
	for (size > 0 && n < size) || (lines > 0 && g.ord < lines) {
		put(g.Turn())
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
