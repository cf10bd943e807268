package acpfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// prompt handles session/prompt: it replaces (cancels) the session's running
// prompt, as Gemini does, and plays the script in a goroutine of its own.
func (a *agent) prompt(id, params json.RawMessage) {
	var p promptParams
	if err := decode(params, &p); err != nil {
		a.out.fail(id, err)
		return
	}
	var texts []string
	for _, b := range p.Prompt {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	if len(texts) == 0 {
		a.out.fail(id, invalidParams("Invalid params: the prompt has no text block"))
		return
	}

	a.mu.Lock()
	s := a.sessions[p.SessionID]
	if s == nil {
		a.mu.Unlock()
		a.out.fail(id, sessionNotFound(p.SessionID))
		return
	}
	ctx, cancel := context.WithCancel(a.ctx)
	pr := &prompt{id: id, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	prev := s.running
	s.running = pr
	a.mu.Unlock()
	if prev != nil {
		prev.cancel()
	}

	t := &turnRun{a: a, s: s, pr: pr, text: strings.Join(texts, "\n")}
	go func() {
		if prev != nil {
			// The replaced prompt replies "cancelled" before this one
			// starts (once its permission request, if any, is answered).
			select {
			case <-prev.done:
			case <-a.ctx.Done():
				return
			}
		}
		t.run()
	}()
}

// turnRun is one prompt being played.
type turnRun struct {
	a      *agent
	s      *session
	pr     *prompt
	text   string
	answer strings.Builder // the agent message text sent, stored with the turn
}

// run plays the script and replies to the prompt.
func (t *turnRun) run() {
	a := t.a
	defer close(t.pr.done)
	defer t.pr.cancel()

	err := t.pr.ctx.Err() // cancelled while it waited for the prompt it replaced
	if err == nil {
		err = t.play()
	}
	var result promptResult
	var rpcErr *rpcError
	switch {
	case errors.Is(err, errCancelled), errors.Is(err, context.Canceled):
		result.StopReason = "cancelled"
	case errors.As(err, &rpcErr):
	case err != nil:
		rpcErr = &rpcError{Code: codeInternalError, Message: err.Error()}
	default:
		result.StopReason = "end_turn"
		rpcErr = t.store()
	}

	a.mu.Lock()
	if t.s.running == t.pr {
		t.s.running = nil
	}
	a.mu.Unlock()
	if a.ctx.Err() != nil {
		return // the agent is exiting: nobody gets a reply
	}
	if rpcErr != nil {
		a.out.fail(t.pr.id, rpcErr)
		return
	}
	if result.StopReason == "end_turn" {
		// Tokens are counted as bytes: enough for tests that check usage
		// reaches the client.
		q := &quotaMeta{}
		q.Quota.TokenCount.InputTokens = len(t.text)
		q.Quota.TokenCount.OutputTokens = t.answer.Len()
		result.Meta = q
	}
	a.out.reply(t.pr.id, result)
}

// store keeps the completed turn, in memory and in StateDir, before the
// reply, so that a client that saw the reply can load the turn elsewhere.
func (t *turnRun) store() *rpcError {
	a := t.a
	a.mu.Lock()
	t.s.turns = append(t.s.turns, turn{Prompt: t.text, Answer: t.answer.String()})
	st := stored{SessionID: t.s.id, Cwd: t.s.cwd, Turns: append([]turn(nil), t.s.turns...)}
	a.mu.Unlock()
	if a.opts.StateDir == "" {
		return nil
	}
	if err := a.store(st); err != nil {
		return &rpcError{Code: codeInternalError, Message: "store session: " + err.Error()}
	}
	return nil
}

// Script words: the prompt's first word picks its script.
const (
	scriptThink   = "THINK"
	scriptTool    = "TOOL"
	scriptEdit    = "EDIT"
	scriptSlow    = "SLOW"
	scriptHistory = "HISTORY"
	scriptFail    = "FAIL"
	scriptCrash   = "CRASH"
	scriptGarbage = "GARBAGE"
	scriptHang    = "HANG"
	scriptBig     = "BIG"
	scriptStderr  = "STDERR"
	scriptFlood   = "FLOOD"
)

// slowInterval is the time between SLOW's chunks: long enough for a test to
// cancel between two, short enough to keep tests fast.
const slowInterval = 50 * time.Millisecond

// editText is what EDIT writes.
const editText = "hello\n"

// play runs the prompt's script. A nil error ends the turn end_turn;
// errCancelled ends it cancelled; an *rpcError is the prompt's error reply.
func (t *turnRun) play() error {
	word, arg, _ := strings.Cut(strings.TrimSpace(t.text), " ")
	switch word {
	case scriptThink:
		t.send(chunk{SessionUpdate: "agent_thought_chunk", Content: text("**Subject**\n" + arg)})
		t.say("thought about it")
	case scriptTool:
		return t.tool("execute", arg, []toolContent{contentText("(run cmd)")}, nil, func() (string, error) {
			return "ran " + arg, nil // nothing is run: the fake only says so
		})
	case scriptEdit:
		return t.edit(arg)
	case scriptSlow:
		n, err := count(word, arg)
		if err != nil {
			return err
		}
		return t.slow(n)
	case scriptHistory:
		t.a.mu.Lock()
		var prompts []string
		for _, tr := range t.s.turns {
			prompts = append(prompts, tr.Prompt)
		}
		t.a.mu.Unlock()
		t.say(strings.Join(prompts, "|"))
	case scriptFail:
		return &rpcError{Code: codeInternalError, Message: "model failed"}
	case scriptCrash:
		t.say("crashing")
		t.a.exitWith(exitCrash)
		return errCancelled // not reached in a real process: it has exited
	case scriptGarbage:
		for i := range 3 {
			t.a.out.raw(fmt.Appendf(nil, "garbage line %d: this is not JSON {", i+1))
		}
		t.echo()
	case scriptHang:
		<-t.pr.ctx.Done()
		return errCancelled
	case scriptBig:
		n, err := count(word, arg)
		if err != nil {
			return err
		}
		t.say(strings.Repeat("x", n))
	case scriptFlood:
		return t.flood(arg)
	case scriptStderr:
		fmt.Fprintln(t.a.stderr, "acpfake: a line on stderr, as agents print logs")
		t.echo()
	default:
		t.echo()
	}
	return nil
}

// count reads a script's number argument.
func count(word, arg string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil || n < 0 {
		return 0, invalidParams(fmt.Sprintf("Invalid params: %s needs a count, got %q", word, arg))
	}
	return n, nil
}

func (t *turnRun) send(u any) { t.a.out.update(t.s.id, u) }

// say sends one agent_message_chunk.
func (t *turnRun) say(s string) {
	t.answer.WriteString(s)
	t.send(chunk{SessionUpdate: "agent_message_chunk", Content: text(s)})
}

// echo answers "echo: <prompt>" in two chunks.
func (t *turnRun) echo() {
	t.say("echo: ")
	t.say(t.text)
}

// flood sends "FLOOD <n> <size>": n chunks of size bytes, back to back, as
// fast as the pipe takes them (n 0: until the agent exits). It ignores
// session/cancel, as a runaway agent would: only the end of the process
// stops it. Unlike say, it keeps nothing: the fake stays small whatever it
// sends.
func (t *turnRun) flood(arg string) error {
	ns, sizes, _ := strings.Cut(arg, " ")
	n, err := count(scriptFlood, ns)
	if err != nil {
		return err
	}
	size, err := count(scriptFlood, sizes)
	if err != nil {
		return err
	}
	c := chunk{SessionUpdate: "agent_message_chunk", Content: text(strings.Repeat("x", size))}
	for i := 0; n == 0 || i < n; i++ {
		t.send(c)
	}
	return nil
}

func (t *turnRun) slow(n int) error {
	tick := time.NewTicker(slowInterval)
	defer tick.Stop()
	for i := 1; i <= n; i++ {
		select {
		case <-tick.C:
			t.say(fmt.Sprintf("tick%d ", i))
		case <-t.pr.ctx.Done():
			return errCancelled
		}
	}
	return nil
}

func (t *turnRun) edit(arg string) error {
	if arg == "" {
		return invalidParams("Invalid params: EDIT needs a path")
	}
	path := arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.s.cwd, path)
	}
	empty := ""
	diff := []toolContent{{Type: "diff", Path: path, OldText: &empty, NewText: editText}}
	return t.tool("edit", "Writing to "+arg, diff, []toolLocation{{Path: path}}, func() (string, error) {
		if err := os.WriteFile(path, []byte(editText), 0o600); err != nil {
			return "", err
		}
		return "wrote " + path, nil
	})
}

// tool asks before running a tool of kind, unless the session is in yolo
// mode or the kind was allowed for the session, then runs it and reports
// the result, the way Gemini reports run_shell_command and write_file.
func (t *turnRun) tool(kind, title string, content []toolContent, locations []toolLocation, do func() (string, error)) error {
	a := t.a
	if locations == nil {
		locations = []toolLocation{}
	}
	a.mu.Lock()
	id := fmt.Sprintf("%s_%d", kind, a.nextTool)
	a.nextTool++
	asks := t.s.mode != modeYolo && !t.s.always[kind]
	a.mu.Unlock()
	call := toolCall{ToolCallID: id, Status: "pending", Title: title, Content: content, Locations: locations, Kind: kind}

	if asks {
		option, err := t.ask(call)
		if err != nil {
			return err
		}
		switch option {
		case optAlways:
			a.mu.Lock()
			t.s.always[kind] = true
			a.mu.Unlock()
		case optOnce:
		default:
			// Rejected or cancelled: Gemini sends no tool_call_update, and
			// the model goes on without the tool.
			t.say("denied")
			return nil
		}
	} else {
		// Without a request, a tool_call announces the call.
		announce := call
		announce.SessionUpdate, announce.Status = "tool_call", "in_progress"
		t.send(announce)
	}

	out, err := do()
	upd := call
	upd.SessionUpdate, upd.Status = "tool_call_update", "completed"
	if err != nil {
		upd.Status, out = "failed", err.Error()
	}
	upd.Content = []toolContent{contentText(out)}
	t.send(upd)
	if err != nil {
		t.say("failed")
	} else {
		t.say("done")
	}
	return nil
}

// ask sends session/request_permission for call and returns the option the
// client selected ("" when it answered cancelled or with an error). A
// cancel while the request is open does not end the prompt: the client's
// answer does, and then the prompt ends cancelled (errCancelled).
func (t *turnRun) ask(call toolCall) (string, error) {
	a := t.a
	if t.pr.ctx.Err() != nil {
		return "", errCancelled
	}
	answer := a.request("session/request_permission", permissionRequest{SessionID: t.s.id, Options: permissionOptions, ToolCall: call})

	var m inbound
	select {
	case m = <-answer:
	case <-a.ctx.Done():
		return "", errCancelled
	}
	if t.pr.ctx.Err() != nil {
		return "", errCancelled
	}
	var r permissionResponse
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.Outcome.Outcome != "selected" {
		return "", nil
	}
	return r.Outcome.OptionID, nil
}
