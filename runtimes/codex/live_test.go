package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/codex/codextest"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
	"github.com/cdevd/cdevd/testdoubles/fakeopenai"
)

// These tests run the real Codex CLI (node_modules/.bin/codex, or
// CODEX_BIN) against the fake Responses API; a missing CLI fails them.

// liveEnv is one test's adapter on the real CLI, with a mark in the
// environment that finds every process it starts.
type liveEnv struct {
	api  *fakeopenai.Server
	a    *Adapter
	env  []string
	ws   string
	mark string
}

func newLive(t *testing.T, responder fakeopenai.Responder) *liveEnv {
	t.Helper()
	api := fakeopenai.New(t)
	api.Respond(responder)
	mark := fmt.Sprintf("CDEVD_CODEX_TEST=%s-%d", t.Name(), time.Now().UnixNano())
	env := append(codextest.Env(t, api.BaseURL()), mark)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{Bin: codextest.Bin(t), Env: env, KillGrace: 5 * time.Second, Logger: zaptest.NewLogger(t)})
	l := &liveEnv{api: api, a: a, env: env, ws: ws, mark: mark}
	t.Cleanup(func() { a.Transcripts().(io.Closer).Close() }) // its history's tree watch
	t.Cleanup(func() {
		if left := proctest.Marked(mark); len(left) > 0 {
			t.Errorf("processes left: %v", left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return l
}

func (l *liveEnv) start(t *testing.T, req runtimes.StartRequest) (*session, *events) {
	t.Helper()
	evs := newEvents()
	if req.Dir == "" {
		req.Dir = l.ws
	}
	s, err := l.a.Start(codextest.Context(t), req, evs.add)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	return s.(*session), evs
}

// commands answers "RUN <cmd>" with an exec_command call and a call's
// output with a text naming it; anything else is echoed.
func commands(r fakeopenai.Request) fakeopenai.Reply {
	if out, ok := r.CallOutput(); ok {
		return fakeopenai.Text("ran " + out.CallID)
	}
	if cmd, ok := strings.CutPrefix(r.LastUserText(), "RUN "); ok {
		return fakeopenai.Exec(cmd)
	}
	return fakeopenai.Echo(r)
}

// sameAsStored checks that every message the session emitted is stored in
// the rollout with the same id and content, in the same order: the engine
// merges live and stored messages by id.
func sameAsStored(t *testing.T, l *liveEnv, id string, evs []runtimes.Event) {
	t.Helper()
	var live []rpc.Message
	for _, ev := range evs {
		if m, ok := ev.(runtimes.MessageCompleted); ok {
			live = append(live, m.Message)
		}
	}
	stored, _, err := l.a.Transcripts().Messages(context.Background(), l.ws, id, 0, 500, false)
	if err != nil {
		t.Fatalf("stored messages: %v", err)
	}
	strip := func(ms []rpc.Message) []string {
		var out []string
		for _, m := range ms {
			m.Timestamp = ""
			b, _ := json.Marshal(m)
			out = append(out, string(b))
		}
		return out
	}
	if got, want := strip(live), strip(stored); !slices.Equal(got, want) {
		t.Errorf("live messages differ from the rollout's:\nlive:   %s\nstored: %s",
			strings.Join(got, "\n        "), strings.Join(want, "\n        "))
	}
}

func TestLiveTextTurns(t *testing.T) {
	var n atomic.Int32
	l := newLive(t, func(r fakeopenai.Request) fakeopenai.Reply {
		if n.Add(1) == 1 {
			return fakeopenai.Think("Pondering the request.", "Hello from the fake.")
		}
		return fakeopenai.Echo(r)
	})
	began := time.Now()
	c := captureLines(t, l, "text_turns")
	s, evs := l.start(t, runtimes.StartRequest{})
	c.setThread(s.ID())
	startLatency := time.Since(began)
	if runtimes.ValidSessionID(s.ID()) != nil {
		t.Fatalf("session id %q", s.ID())
	}

	sent := time.Now()
	send(t, s, "hello")
	if err := s.Send(context.Background(), runtimes.Turn{Prompt: "again"}); !errors.Is(err, runtimes.ErrBusy) {
		t.Errorf("send during a turn: %v, want ErrBusy", err)
	}
	first := await(t, evs, func(d runtimes.MessageDelta) bool { return d.Phase == rpc.PhaseText })
	firstDelta := time.Since(sent)
	done, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted)
	if !ok {
		t.Fatalf("turn did not complete: %s", describe(evs.all()))
	}
	if done.Usage.InputTokens == 0 || done.Usage.OutputTokens == 0 || done.StopReason != "end_turn" {
		t.Errorf("turn completed with %+v", done)
	}
	if count[runtimes.MessageDelta](evs.all()) < 2 {
		t.Errorf("fewer than two deltas: %s", describe(evs.all()))
	}
	await(t, evs, func(d runtimes.MessageDelta) bool { return d.Phase == rpc.PhaseThinking })
	answer := await(t, evs, func(m runtimes.MessageCompleted) bool {
		return m.Message.Type == rpc.MessageAssistant && m.Message.ID == first.MessageID
	})
	if c := answer.Message.Message.Content; len(c) != 1 || c[0].Text != "Hello from the fake." {
		t.Errorf("answer %+v", answer.Message)
	}
	prompt := await(t, evs, func(m runtimes.MessageCompleted) bool { return m.Message.Type == rpc.MessageUser })
	if c := prompt.Message.Message.Content; len(c) != 1 || c[0].Text != "hello" {
		t.Errorf("echoed prompt %+v", prompt.Message)
	}
	// Read-your-writes: the rollout holds the turn once it has completed.
	sameAsStored(t, l, s.ID(), evs.all())

	// A second turn in the same process.
	n1 := evs.len()
	send(t, s, "second")
	if _, ok := terminalFrom(t, evs, n1).(runtimes.TurnCompleted); !ok {
		t.Fatalf("second turn: %s", describe(evs.since(n1)))
	}
	awaitFrom(t, evs, n1, func(m runtimes.MessageCompleted) bool {
		return len(m.Message.Message.Content) == 1 && m.Message.Message.Content[0].Text == "echo: second"
	})
	sameAsStored(t, l, s.ID(), evs.all())
	if len(l.api.Unexpected()) > 0 {
		t.Errorf("unexpected requests: %+v", l.api.Unexpected())
	}

	rss := rssKiB(l.mark)
	t.Logf("measured: spawn → thread id %v; turn/start → first delta %v; RSS %v", startLatency, firstDelta, rss)
}

// rssKiB is the resident memory of each process carrying mark, by name.
func rssKiB(mark string) map[string]int {
	out := map[string]int{}
	for _, pid := range proctest.Marked(mark) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		var name string
		var kib int
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Name:"); ok {
				name = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kib, _ = strconv.Atoi(strings.Fields(v)[0])
			}
		}
		out[fmt.Sprintf("%s[%d] KiB", name, pid)] = kib
	}
	return out
}

func TestLivePermissions(t *testing.T) {
	l := newLive(t, commands)
	c := captureLines(t, l, "permissions")
	s, evs := l.start(t, runtimes.StartRequest{PermissionMode: rpc.PermissionDefault})
	c.setThread(s.ID())

	ask := func(cmd string, decision runtimes.Decision) (runtimes.PromptRequested, runtimes.Event) {
		t.Helper()
		n := evs.len()
		send(t, s, "RUN "+cmd)
		p := awaitFrom(t, evs, n, func(p runtimes.PromptRequested) bool { return p.Permission != nil })
		if p.Permission.Kind != rpc.PermBash || p.Permission.Target != cmd || p.Permission.ToolName != "Bash" ||
			len(p.Permission.Options) != 3 {
			t.Errorf("prompt %+v", p.Permission)
		}
		if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: decision}); err != nil {
			t.Fatalf("respond: %v", err)
		}
		if err := s.Respond(context.Background(), p.RequestID, runtimes.Answer{Decision: decision}); !errors.Is(err, runtimes.ErrNoRequest) {
			t.Errorf("second answer: %v, want ErrNoRequest", err)
		}
		return p, terminalFrom(t, evs, n)
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(l.ws, name))
		return err == nil
	}

	if _, end := ask("touch allowed.txt", runtimes.Allow); !exists("allowed.txt") {
		t.Errorf("allowed command did not run; turn ended %+v", end)
	}
	if _, end := ask("touch denied.txt", runtimes.Deny); exists("denied.txt") {
		t.Errorf("denied command ran")
	} else if _, ok := end.(runtimes.TurnCompleted); !ok {
		t.Errorf("turn after a denial ended %+v", end)
	}
	ask("touch always1.txt", runtimes.AllowAlways)
	n := evs.len()
	send(t, s, "RUN touch always1.txt")
	terminalFrom(t, evs, n)
	if c := count[runtimes.PromptRequested](evs.since(n)); c != 0 || !exists("always1.txt") {
		t.Errorf("after always: %d prompts, file %v", c, exists("always1.txt"))
	}
	if c := count[runtimes.PromptCancelled](evs.all()); c != 0 {
		t.Errorf("%d answered prompts were reported cancelled: %s", c, describe(evs.all()))
	}
	// The commands that ran are messages too, the same live as stored.
	ran := await(t, evs, func(m runtimes.MessageCompleted) bool {
		c := m.Message.Message.Content
		return len(c) == 2 && c[1].Type == rpc.BlockToolResult
	})
	if c := ran.Message.Message.Content; c[0].Name != "Bash" || string(c[0].Input) != `{"command":"touch allowed.txt"}` || c[1].IsError {
		t.Errorf("command message %+v", ran.Message)
	}
	sameAsStored(t, l, s.ID(), evs.all())
}

func TestLiveBypassRunsWithoutAsking(t *testing.T) {
	l := newLive(t, commands)
	s, evs := l.start(t, runtimes.StartRequest{Yolo: true})
	send(t, s, "RUN touch yolo.txt")
	if _, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn: %s", describe(evs.all()))
	}
	if _, err := os.Stat(filepath.Join(l.ws, "yolo.txt")); err != nil || count[runtimes.PromptRequested](evs.all()) != 0 {
		t.Errorf("bypass: file %v, events %s", err, describe(evs.all()))
	}
}

func TestLiveInterrupt(t *testing.T) {
	l := newLive(t, func(r fakeopenai.Request) fakeopenai.Reply {
		if r.LastUserText() == "slow" {
			return fakeopenai.Slow("tick1 tick2 tick3 tick4 tick5 tick6 tick7 tick8 tick9 tick10", 300*time.Millisecond)
		}
		return fakeopenai.Echo(r)
	})
	c := captureLines(t, l, "interrupt")
	s, evs := l.start(t, runtimes.StartRequest{})
	c.setThread(s.ID())
	send(t, s, "slow")
	partial := await(t, evs, func(d runtimes.MessageDelta) bool { return d.Phase == rpc.PhaseText })
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatalf("interrupt: %v", err)
	}
	failed, ok := terminalFrom(t, evs, 0).(runtimes.TurnFailed)
	if !ok || failed.Code != runtimes.CodeInterrupted {
		t.Fatalf("interrupted turn ended with %s", describe(evs.all()))
	}
	// Codex sends no item/completed for the partial answer; cdevd closes
	// it with what was streamed, before the terminal event, as Claude's
	// adapter does.
	streamed, closed := "", -1
	var closedText string
	for i, ev := range evs.all() {
		switch ev := ev.(type) {
		case runtimes.MessageDelta:
			if ev.MessageID == partial.MessageID {
				streamed += ev.Text
			}
		case runtimes.MessageCompleted:
			if ev.Message.ID == partial.MessageID {
				closed, closedText = i, ev.Message.Message.Content[0].Text
			}
		}
	}
	if closed < 0 || closedText != streamed || slices.IndexFunc(evs.all(), func(ev runtimes.Event) bool {
		_, ok := ev.(runtimes.TurnFailed)
		return ok
	}) < closed {
		t.Fatalf("the partial message %q was not closed with %q before the turn's end: %s",
			partial.MessageID, streamed, describe(evs.all()))
	}
	n := evs.len()
	send(t, s, "after")
	if _, ok := terminalFrom(t, evs, n).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn after the interrupt: %s", describe(evs.since(n)))
	}
	all := evs.all()
	if c := count[runtimes.TurnCompleted](all) + count[runtimes.TurnFailed](all); c != 2 {
		t.Errorf("%d terminal events for two turns: %s", c, describe(all))
	}
	// Codex keeps no partial answer: the rest is as stored.
	sameAsStored(t, l, s.ID(), slices.DeleteFunc(slices.Clone(all), func(ev runtimes.Event) bool {
		m, ok := ev.(runtimes.MessageCompleted)
		return ok && m.Message.ID == partial.MessageID
	}))
	closeSession(t, s)
	if ex := await[runtimes.ProcessExited](t, evs, nil); ex.Reason != "stopped" {
		t.Errorf("exit %+v", ex)
	}
}

func TestLiveResumeAfterKill(t *testing.T) {
	l := newLive(t, fakeopenai.Echo)
	s, evs := l.start(t, runtimes.StartRequest{})
	send(t, s, "remember me")
	terminalFrom(t, evs, 0)
	// The whole group dies, as in a crash: the turn is over, the thread is kept.
	if err := syscall.Kill(-s.p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	await[runtimes.ProcessExited](t, evs, nil)
	<-s.Done()

	s2, evs2 := l.start(t, runtimes.StartRequest{SessionID: s.ID(), Resume: true})
	if s2.ID() != s.ID() || s2.p.Pid() == s.p.Pid() {
		t.Fatalf("resumed %s in pid %d, was %s in %d", s2.ID(), s2.p.Pid(), s.ID(), s.p.Pid())
	}
	send(t, s2, "and now")
	if _, ok := terminalFrom(t, evs2, 0).(runtimes.TurnCompleted); !ok {
		t.Fatalf("resumed turn: %s", describe(evs2.all()))
	}
	reqs := l.api.ResponseRequests()
	if hist := reqs[len(reqs)-1].Transcript(); !strings.Contains(hist, "remember me") {
		t.Errorf("the model did not get the history: %q", hist)
	}
	msgs, total, err := l.a.Transcripts().Messages(context.Background(), l.ws, s.ID(), 0, 50, false)
	if err != nil || total != 4 || msgs[0].Message.Content[0].Text != "remember me" || msgs[3].Message.Content[0].Text != "echo: and now" {
		t.Errorf("stored after resume: %d %v %+v", total, err, msgs)
	}
}

func TestLiveResumeOfExecThread(t *testing.T) {
	l := newLive(t, fakeopenai.Echo)
	cmd := exec.CommandContext(codextest.Context(t), codextest.Bin(t), "exec", "--json", "--skip-git-repo-check", "typed in a terminal")
	cmd.Env, cmd.Dir = l.env, l.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	list, err := l.a.Transcripts().List(context.Background(), l.ws)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v %v", list, err)
	}
	s, evs := l.start(t, runtimes.StartRequest{SessionID: list[0].SessionID, Resume: true})
	send(t, s, "continued from cdevd")
	if _, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn: %s", describe(evs.all()))
	}
	msgs, total, err := l.a.Transcripts().Messages(context.Background(), l.ws, s.ID(), 0, 50, false)
	if err != nil || total != 4 || msgs[0].Message.Content[0].Text != "typed in a terminal" {
		t.Errorf("stored: %d %v %+v", total, err, msgs)
	}
}

func TestLiveResumeUnknownThread(t *testing.T) {
	l := newLive(t, fakeopenai.Echo)
	_, err := l.a.Start(codextest.Context(t), runtimes.StartRequest{Dir: l.ws, Resume: true,
		SessionID: "01a20000-0000-7000-8000-000000000000"}, nil)
	if !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("resume of an unknown thread: %v, want ErrNoSession", err)
	}
}

func TestLiveQuestionInPlanMode(t *testing.T) {
	l := newLive(t, func(r fakeopenai.Request) fakeopenai.Reply {
		if out, ok := r.CallOutput(); ok {
			return fakeopenai.Text("you said " + out.OutputText())
		}
		return fakeopenai.Call("request_user_input", map[string]any{"questions": []map[string]any{{
			"id": "choice", "header": "Choose", "question": "Proceed with the plan?",
			"options": []map[string]string{{"label": "Yes (Recommended)", "description": "Go ahead."},
				{"label": "No", "description": "Stop here."}},
		}}})
	})
	c := captureLines(t, l, "question")
	s, evs := l.start(t, runtimes.StartRequest{PermissionMode: rpc.PermissionPlan})
	c.setThread(s.ID())
	send(t, s, "plan something")
	q := await(t, evs, func(p runtimes.PromptRequested) bool { return p.Question != nil })
	if qs := q.Question.Questions; len(qs) != 1 || qs[0].Question != "Proceed with the plan?" || len(qs[0].Options) != 2 {
		t.Fatalf("question %+v", q.Question)
	}
	if err := s.Respond(context.Background(), q.RequestID, runtimes.Answer{Text: "1"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := terminalFrom(t, evs, 0).(runtimes.TurnCompleted); !ok {
		t.Fatalf("turn: %s", describe(evs.all()))
	}
	reqs := l.api.ResponseRequests()
	if out, ok := reqs[len(reqs)-1].CallOutput(); !ok || !strings.Contains(out.OutputText(), "Yes (Recommended)") {
		t.Errorf("the model got %+v", out)
	}
}

// Stopping a session mid-turn interrupts the turn first: it ends as
// interrupted (not as a CLI that died under it), Codex records it in the
// rollout (turn_aborted), and then the process group ends.
func TestLiveStopMidTurnClosesTheTurn(t *testing.T) {
	l := newLive(t, func(r fakeopenai.Request) fakeopenai.Reply {
		if r.LastUserText() == "slow" {
			return fakeopenai.Slow("tick1 tick2 tick3 tick4 tick5 tick6 tick7 tick8 tick9 tick10", 300*time.Millisecond)
		}
		return fakeopenai.Echo(r)
	})
	s, evs := l.start(t, runtimes.StartRequest{})
	send(t, s, "slow")
	await(t, evs, func(d runtimes.MessageDelta) bool { return d.Phase == rpc.PhaseText })
	closeSession(t, s)
	all := evs.all()
	if c := count[runtimes.TurnCompleted](all) + count[runtimes.TurnFailed](all); c != 1 {
		t.Fatalf("%d terminal events for one stopped turn: %s", c, describe(all))
	}
	// Ended by the interrupt, not by the process going away under it.
	if f, ok := terminalFrom(t, evs, 0).(runtimes.TurnFailed); !ok || f.Code != runtimes.CodeInterrupted {
		t.Fatalf("the stopped turn ended %s", describe(all))
	}
	path, ok := l.a.rollouts.Locate(s.ID())
	if !ok {
		t.Fatal("no rollout for the stopped thread")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"type":"turn_aborted"`) {
		t.Fatalf("the rollout does not record the stopped turn as aborted:\n%s", b)
	}
}
