package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/proc/proctest"
)

// DefaultTimeout bounds every wait when the Harness names none: real CLIs
// retry a failing API for minutes, so nothing may wait unbounded.
const DefaultTimeout = 90 * time.Second

// Harness is what an adapter's package supplies to Run.
type Harness struct {
	// New returns a fresh adapter for one subtest: its own stored
	// sessions, its own fake model API, its own workspace.
	New func(t *testing.T) Env
	// Missing returns an adapter whose CLI is not installed, for Detect;
	// nil skips that check.
	Missing func(t *testing.T) runtimes.Adapter
	// Text is a prompt the CLI answers with a text turn.
	Text string
	// Slow is a prompt the CLI answers with text streamed slowly: its first
	// delta a second or more before the turn ends, so that calls made after
	// it land during the turn.
	Slow string
	// Permission is a prompt whose turn runs a command that needs the
	// user's permission in the default mode; "" when the runtime never asks.
	Permission string
	// Question is a prompt whose turn asks the user a question with
	// options, in QuestionMode; "" when the runtime never asks.
	Question     string
	QuestionMode rpc.PermissionMode
	// Timeout bounds every wait (DefaultTimeout when zero).
	Timeout time.Duration
}

// Env is one subtest's adapter.
type Env struct {
	Adapter runtimes.Adapter
	// Dir is a workspace: a canonical directory the CLI may run in.
	Dir string
	// Mark is an environment entry ("NAME=value") that every process the
	// adapter starts carries, so that proctest.Marked finds whatever is
	// left of them, at any depth; "" skips the process checks.
	Mark string
}

// Run checks a's conformance to the runtimes.Adapter contract, one subtest
// per rule.
func Run(t *testing.T, h Harness) {
	if h.Timeout <= 0 {
		h.Timeout = DefaultTimeout
	}
	if h.New == nil || h.Text == "" || h.Slow == "" {
		t.Fatal("adaptertest: the Harness needs New, Text and Slow")
	}
	c := &suite{h: h}
	t.Run("Info", c.info)
	t.Run("Detect", c.detect)
	t.Run("PermissionModes", c.permissionModes)
	t.Run("NewSessionID", c.newSessionID)
	t.Run("ResumeUnknown", c.resumeUnknown)
	t.Run("Turns", c.turns)
	t.Run("Busy", c.busy)
	t.Run("CloseDuringTurn", c.closeDuringTurn)
	t.Run("Permission", c.permission)
	t.Run("Question", c.question)
}

type suite struct{ h Harness }

// env makes the subtest's adapter and checks, when it ends, that none of
// its processes is left (after the sessions' own cleanups have closed them).
func (c *suite) env(t *testing.T) Env {
	t.Helper()
	e := c.h.New(t)
	if e.Adapter == nil || e.Dir == "" {
		t.Fatal("adaptertest: Harness.New returned no adapter or no workspace")
	}
	t.Cleanup(func() {
		if left := leftProcesses(e.Mark); len(left) > 0 {
			t.Errorf("processes left when the test ended: %v", left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return e
}

// leftProcesses lists the running processes carrying mark, but this one.
func leftProcesses(mark string) []int {
	if mark == "" {
		return nil
	}
	return slices.DeleteFunc(proctest.Marked(mark), func(pid int) bool { return pid == os.Getpid() })
}

func (c *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), c.h.Timeout)
	t.Cleanup(cancel)
	return ctx
}

// --- Info and Detect --------------------------------------------------------

func (c *suite) info(t *testing.T) {
	// Info does not look at the machine: an adapter made for the test is enough.
	e := c.env(t)
	info := e.Adapter.Info()
	if info.ID == "" || info.DisplayName == "" {
		t.Errorf("Info has ID %q and DisplayName %q; both must be set", info.ID, info.DisplayName)
	}
	if len(info.PermissionModes) == 0 {
		t.Error("Info.PermissionModes is empty: the registry would offer no mode")
	}
	known := rpc.PermissionMode("").Enum()
	for i, m := range info.PermissionModes {
		if !slices.Contains(known, string(m)) {
			t.Errorf("permission mode %q is not one of the protocol's %v", m, known)
		}
		if slices.Contains(info.PermissionModes[:i], m) {
			t.Errorf("permission mode %q is listed twice", m)
		}
	}
	if !info.AcceptsPermissionMode("") {
		t.Error(`AcceptsPermissionMode("") is false: no mode (the runtime's default) must always be accepted`)
	}
	f := info.Features
	// Start returns the final id (the Adapter contract), so the registry
	// must never make clients wait for a resolution.
	if !f.IDKnownAtStart {
		t.Error("Features.IDKnownAtStart is false, but Start returns the final session id")
	}
	if f.Resume && e.Adapter.Transcripts() == nil {
		t.Error("Features.Resume without Transcripts: a resumed id cannot be checked or listed")
	}
	if f.Permissions && c.h.Permission == "" {
		t.Error("Features.Permissions, but the harness has no prompt that makes the CLI ask")
	}
	if f.InteractiveQuestions && c.h.Question == "" {
		t.Error("Features.InteractiveQuestions, but the harness has no prompt that makes the CLI ask a question")
	}
}

func (c *suite) detect(t *testing.T) {
	e := c.env(t)
	av := noPanic(t, "Detect", func() runtimes.Availability { return e.Adapter.Detect(c.ctx(t)) })
	if !av.Usable() || av.Path == "" || av.Version == "" {
		t.Errorf("Detect of the harness's CLI = %+v, want usable with a path and a version", av)
	}

	// A Detect whose ctx ends must answer about then, whatever the CLI
	// does. The slack covers a child's pipes draining after it is killed.
	const slack = 3 * time.Second
	for _, d := range []time.Duration{0, 20 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		began := time.Now()
		noPanic(t, "Detect", func() runtimes.Availability { return e.Adapter.Detect(ctx) })
		if took := time.Since(began); took > d+slack {
			t.Errorf("Detect with a ctx of %v returned after %v", d, took)
		}
		cancel()
	}

	if c.h.Missing != nil {
		av := noPanic(t, "Detect", func() runtimes.Availability { return c.h.Missing(t).Detect(c.ctx(t)) })
		if av.Usable() || av.Reason == "" {
			t.Errorf("Detect of a missing CLI = %+v, want unusable with a reason", av)
		}
	}
}

func noPanic[T any](t *testing.T, what string, f func() T) (v T) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	return f()
}

// --- Start --------------------------------------------------------------------

func (c *suite) permissionModes(t *testing.T) {
	e := c.env(t)
	for _, m := range e.Adapter.Info().PermissionModes {
		s := c.start(t, e, runtimes.StartRequest{PermissionMode: m})
		if err := runtimes.ValidSessionID(s.ID()); err != nil {
			t.Errorf("mode %s: %v", m, err)
		}
		s.closeIdle(t)
	}
}

func (c *suite) newSessionID(t *testing.T) {
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	if err := runtimes.ValidSessionID(s.ID()); err != nil {
		t.Errorf("new session: %v", err)
	}
	s.closeIdle(t)

	// A client's id: a UUID, the only kind the engine passes on.
	id := uuid.NewString()
	if e.Adapter.Info().ClientIDs {
		s := c.start(t, e, runtimes.StartRequest{SessionID: id})
		if s.ID() != id {
			t.Errorf("started with the client's id %s, runs as %s", id, s.ID())
		}
		s.closeIdle(t)
		return
	}
	rec := newRecorder(c.h.Timeout)
	s2, err := e.Adapter.Start(c.ctx(t), runtimes.StartRequest{SessionID: id, Dir: e.Dir}, rec.sink)
	if err == nil {
		_ = s2.Close(c.ctx(t))
		t.Fatalf("Info.ClientIDs is false, but Start accepted the client's id %s (runs as %s)", id, s2.ID())
	}
	if n := rec.len(); n > 0 {
		t.Errorf("a refused Start delivered %d events", n)
	}
	if left := leftProcesses(e.Mark); len(left) > 0 {
		t.Errorf("a refused Start left processes %v", left)
	}
}

func (c *suite) resumeUnknown(t *testing.T) {
	e := c.env(t)
	rec := newRecorder(c.h.Timeout)
	s, err := e.Adapter.Start(c.ctx(t), runtimes.StartRequest{SessionID: uuid.NewString(), Resume: true, Dir: e.Dir}, rec.sink)
	if err == nil {
		_ = s.Close(c.ctx(t))
	}
	if !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("resume of an id never stored: %v, want an error wrapping ErrNoSession", err)
	}
	if left := leftProcesses(e.Mark); len(left) > 0 {
		t.Errorf("a refused resume left processes %v", left)
	}
}

// --- Turns and transcripts ----------------------------------------------------

func (c *suite) turns(t *testing.T) {
	e := c.env(t)
	info := e.Adapter.Info()
	tr := e.Adapter.Transcripts()
	var w *watch
	if tr != nil {
		w = startWatch(t, tr, e.Dir)
	}
	s := c.start(t, e, runtimes.StartRequest{})
	id := s.ID()
	ctx := c.ctx(t)

	// Idle: an interrupt does nothing, no prompt is pending.
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt when idle: %v", err)
	}
	if err := s.Respond(ctx, "no-such-request", runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("Respond to an unknown id: %v, want ErrNoRequest", err)
	}
	turn1 := s.turn(t, c.h.Text)
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt when idle after a turn: %v", err)
	}
	turn2 := s.turn(t, c.h.Text)
	for i, evs := range [][]runtimes.Event{turn1, turn2} {
		if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
			t.Errorf("text turn %d ended with %s", i+1, describe(evs[len(evs)-1]))
		}
		checkEcho(t, info, c.h.Text, evs)
	}
	live := messages(s.rec.all())

	t.Run("AfterExit", func(t *testing.T) {
		s.closeIdle(t)
		if err := s.Send(ctx, runtimes.Turn{Prompt: c.h.Text}); !errors.Is(err, runtimes.ErrExited) {
			t.Errorf("Send after exit: %v, want ErrExited", err)
		}
		if err := s.Respond(ctx, "no-such-request", runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrExited) {
			t.Errorf("Respond after exit: %v, want ErrExited", err)
		}
		s.close(t) // again
	})
	if tr == nil {
		t.Log("the adapter keeps no transcripts: nothing more to check")
		return
	}

	t.Run("Watch", func(t *testing.T) { w.await(t, id, c.h.Timeout) })
	t.Run("Messages", func(t *testing.T) { awaitStored(t, tr, w, e.Dir, id, live, info, c.h.Timeout) })
	t.Run("List", func(t *testing.T) {
		list, err := tr.List(ctx, e.Dir)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if !slices.ContainsFunc(list, func(s runtimes.Summary) bool { return s.SessionID == id }) {
			t.Errorf("List does not have session %s: %+v", id, list)
		}
		if !tr.Has(ctx, e.Dir, id) {
			t.Errorf("Has(%s) is false", id)
		}
		if tr.Has(ctx, e.Dir, uuid.NewString()) {
			t.Error("Has is true for an id never stored")
		}
	})
	if info.Features.Resume {
		t.Run("Resume", func(t *testing.T) {
			r := c.start(t, e, runtimes.StartRequest{SessionID: id, Resume: true})
			if r.ID() != id {
				t.Fatalf("resumed %s as %s", id, r.ID())
			}
			evs := r.turn(t, c.h.Text)
			checkEcho(t, info, c.h.Text, evs)
			r.closeIdle(t)
			live = append(live, messages(evs)...)
			awaitStored(t, tr, w, e.Dir, id, live, info, c.h.Timeout)
		})
	}
	t.Run("Trash", func(t *testing.T) {
		bin := newBin(t)
		if err := tr.Trash(ctx, e.Dir, id, bin); err != nil {
			t.Fatalf("Trash: %v", err)
		}
		if len(bin.files()) == 0 {
			t.Error("Trash put nothing in the bin")
		}
		if tr.Has(ctx, e.Dir, id) {
			t.Error("Has is still true after Trash")
		}
		if list, err := tr.List(ctx, e.Dir); err != nil || slices.ContainsFunc(list, func(s runtimes.Summary) bool { return s.SessionID == id }) {
			t.Errorf("List after Trash: %+v, %v", list, err)
		}
		if err := tr.Trash(ctx, e.Dir, id, bin); !errors.Is(err, runtimes.ErrNoSession) {
			t.Errorf("Trash of a trashed session: %v, want ErrNoSession", err)
		}
	})
}

// checkEcho checks the prompt's echo in a turn's events: exactly one user
// message with the prompt's text when the adapter echoes, none otherwise.
func checkEcho(t *testing.T, info runtimes.Info, prompt string, evs []runtimes.Event) {
	t.Helper()
	var users, answers []rpc.Message
	for _, m := range messages(evs) {
		switch m.Type {
		case rpc.MessageUser:
			users = append(users, m)
		case rpc.MessageAssistant:
			answers = append(answers, m)
		}
	}
	if len(answers) == 0 || text(answers[len(answers)-1]) == "" {
		t.Errorf("no assistant message with text in the turn: %s", describeAll(evs))
	}
	if !info.EchoesPrompts {
		if len(users) > 0 {
			t.Errorf("EchoesPrompts is false, but the turn emitted user messages %+v", users)
		}
		return
	}
	if len(users) != 1 || text(users[0]) != prompt || users[0].ID == "" {
		t.Errorf("EchoesPrompts: want one user message %q with an id, got %+v", prompt, users)
	}
}

// awaitStored waits until the stored transcript holds exactly the live
// messages (ids, types, text, in order), woken by the transcript watch.
// When the adapter does not echo prompts, the stored prompts are skipped:
// the engine emits those itself.
func awaitStored(t *testing.T, tr runtimes.Transcripts, w *watch, dir, id string, live []rpc.Message, info runtimes.Info, timeout time.Duration) {
	t.Helper()
	want := keys(live, true)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		stored, total, err := tr.Messages(context.Background(), dir, id, 0, 10000, false)
		got := keys(stored, info.EchoesPrompts)
		if err == nil && slices.Equal(got, want) {
			if total != len(stored) {
				t.Errorf("Messages says %d in all, returned %d", total, len(stored))
			}
			return
		}
		select {
		case <-w.changed:
		case <-deadline.C:
			t.Fatalf("the stored messages (err %v) never matched the live ones:\nstored: %s\nlive:   %s",
				err, strings.Join(got, "\n        "), strings.Join(want, "\n        "))
		}
	}
}

func keys(ms []rpc.Message, users bool) []string {
	var out []string
	for _, m := range ms {
		if m.Type == rpc.MessageUser && !users {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %q", m.Type, m.ID, text(m)))
	}
	return out
}

// text is a message's text blocks joined.
func text(m rpc.Message) string {
	var parts []string
	for _, b := range m.Message.Content {
		if b.Type == rpc.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func messages(evs []runtimes.Event) []rpc.Message {
	var out []rpc.Message
	for _, ev := range evs {
		if m, ok := ev.(runtimes.MessageCompleted); ok {
			out = append(out, m.Message)
		}
	}
	return out
}

// --- During a turn --------------------------------------------------------------

func (c *suite) busy(t *testing.T) {
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	ctx := c.ctx(t)
	n := s.send(t, c.h.Slow)
	s.rec.await(t, n, "a message delta", isA[runtimes.MessageDelta])
	if err := s.Send(ctx, runtimes.Turn{Prompt: c.h.Text}); !errors.Is(err, runtimes.ErrBusy) {
		t.Errorf("Send during a turn: %v, want ErrBusy", err)
	}
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt during a turn: %v", err)
	}
	// The interrupted turn ends once, either way; then the session serves
	// the next turn.
	s.endTurn(t, n)
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt when idle after an interrupted turn: %v", err)
	}
	evs := s.turn(t, c.h.Text)
	if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
		t.Errorf("the turn after an interrupt ended with %s", describe(evs[len(evs)-1]))
	}
	s.closeIdle(t)
}

func (c *suite) closeDuringTurn(t *testing.T) {
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	n := s.send(t, c.h.Slow)
	s.rec.await(t, n, "a message delta", isA[runtimes.MessageDelta])
	// Several closers at once, as when a client stops a session while the
	// engine reaps it: every one returns once the process is gone.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	ctx := c.ctx(t)
	for i := range errs {
		wg.Go(func() { errs[i] = s.Close(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Close %d: %v", i, err)
		}
	}
	s.checkClosed(t)
	evs := s.rec.since(n)
	if got := count(evs, isTerminal); got != 1 {
		t.Errorf("the turn closed under it has %d terminal events: %s", got, describeAll(evs))
	}
	i := slices.IndexFunc(evs, isTerminal)
	if i < 1 || !isActivity(evs[i-1], rpc.ActivityIdle) {
		t.Errorf("the terminal event does not follow ActivityChanged idle: %s", describeAll(evs))
	}
}

func (c *suite) permission(t *testing.T) {
	if c.h.Permission == "" {
		t.Skip("the harness has no prompt that makes the CLI ask for permission")
	}
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	ctx := c.ctx(t)
	n := s.send(t, c.h.Permission)
	i := s.rec.await(t, n, "a permission prompt", func(ev runtimes.Event) bool {
		p, ok := ev.(runtimes.PromptRequested)
		return ok && p.Permission != nil
	})
	p := s.rec.at(i).(runtimes.PromptRequested)
	if p.RequestID == "" || p.Question != nil || len(p.Permission.Options) == 0 {
		t.Errorf("permission prompt %+v (%+v)", p, p.Permission)
	}
	s.rec.await(t, i+1, "the activity after the prompt", isA[runtimes.ActivityChanged])
	if next := s.rec.at(i + 1); !isActivity(next, rpc.ActivityPermission) {
		t.Errorf("the prompt is followed by %s, want ActivityChanged permission", describe(next))
	}
	if err := s.Respond(ctx, "no-such-request", runtimes.Answer{Decision: runtimes.Deny}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("Respond to an unknown id while a prompt is pending: %v, want ErrNoRequest", err)
	}
	if err := s.Respond(ctx, p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	if err := s.Respond(ctx, p.RequestID, runtimes.Answer{Decision: runtimes.Deny}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("a second answer: %v, want ErrNoRequest", err)
	}
	// A PromptCancelled for the answered prompt may follow: the kit
	// withdraws a claimed prompt when the turn ends before Respond returns,
	// and the engine, which removed the prompt when it claimed it, ignores it.
	s.endTurn(t, n)
	s.closeIdle(t)
}

func (c *suite) question(t *testing.T) {
	if c.h.Question == "" {
		t.Skip("the harness has no prompt that makes the CLI ask a question")
	}
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{PermissionMode: c.h.QuestionMode})
	n := s.send(t, c.h.Question)
	i := s.rec.await(t, n, "a question", func(ev runtimes.Event) bool {
		p, ok := ev.(runtimes.PromptRequested)
		return ok && p.Question != nil
	})
	q := s.rec.at(i).(runtimes.PromptRequested)
	if q.RequestID == "" || q.Permission != nil || len(q.Question.Questions) == 0 || len(q.Question.Questions[0].Options) == 0 {
		t.Fatalf("question prompt %+v", q)
	}
	s.rec.await(t, i+1, "the activity after the question", isA[runtimes.ActivityChanged])
	if next := s.rec.at(i + 1); !isActivity(next, rpc.ActivityQuestion) {
		t.Errorf("the question is followed by %s, want ActivityChanged question", describe(next))
	}
	if err := s.Respond(c.ctx(t), q.RequestID, runtimes.Answer{Text: q.Question.Questions[0].Options[0].Key}); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	evs := s.endTurn(t, n)
	if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
		t.Errorf("the answered turn ended with %s", describe(evs[len(evs)-1]))
	}
	s.closeIdle(t)
}

// --- Sessions -------------------------------------------------------------------

// session is a started session and the events it delivered.
type session struct {
	runtimes.Session
	rec     *recorder
	mark    string
	timeout time.Duration
	// quiet is the index after the last turn's terminal event, from where
	// nothing may come until the next Send or ProcessExited; -1 before the
	// first turn.
	quiet int
}

// start starts a session in e.Dir (unless req names a Dir); it is closed
// when the test ends.
func (c *suite) start(t *testing.T, e Env, req runtimes.StartRequest) *session {
	t.Helper()
	if req.Dir == "" {
		req.Dir = e.Dir
	}
	rec := newRecorder(c.h.Timeout)
	s, err := e.Adapter.Start(c.ctx(t), req, rec.sink)
	if err != nil {
		t.Fatalf("Start(%+v): %v", req, err)
	}
	ss := &session{Session: s, rec: rec, mark: e.Mark, timeout: c.h.Timeout, quiet: -1}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.h.Timeout)
		defer cancel()
		_ = s.Close(ctx)
	})
	return ss
}

// send starts a turn and returns the index of its first event.
func (s *session) send(t *testing.T, prompt string) int {
	t.Helper()
	n := s.rec.len()
	if s.quiet >= 0 && n > s.quiet {
		t.Errorf("events after a turn's terminal event, outside any turn: %s", describeAll(s.rec.since(s.quiet)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.Send(ctx, runtimes.Turn{Prompt: prompt}); err != nil {
		t.Fatalf("Send(%q): %v", prompt, err)
	}
	return n
}

// turn runs a whole turn and returns its checked events.
func (s *session) turn(t *testing.T, prompt string) []runtimes.Event {
	t.Helper()
	return s.endTurn(t, s.send(t, prompt))
}

// endTurn waits for the end of the turn whose first event is at from, and
// checks its order: ActivityChanged thinking first, then anything, then
// ActivityChanged idle and exactly one TurnCompleted or TurnFailed, last.
func (s *session) endTurn(t *testing.T, from int) []runtimes.Event {
	t.Helper()
	end := s.rec.await(t, from, "the turn's terminal event", isTerminal)
	evs := s.rec.since(from)[:end-from+1]
	s.quiet = end + 1
	if !isActivity(evs[0], rpc.ActivityThinking) {
		t.Errorf("the turn begins with %s, want ActivityChanged thinking: %s", describe(evs[0]), describeAll(evs))
	}
	if len(evs) < 3 || !isActivity(evs[len(evs)-2], rpc.ActivityIdle) {
		t.Errorf("the terminal event does not follow ActivityChanged idle: %s", describeAll(evs))
	}
	if n := count(evs, isTerminal); n != 1 {
		t.Errorf("%d terminal events in one turn: %s", n, describeAll(evs))
	}
	if n := count(evs, isA[runtimes.ProcessExited]); n != 0 {
		t.Errorf("ProcessExited during a turn that ended normally: %s", describeAll(evs))
	}
	return evs
}

// closeIdle closes a session that has no turn running: after the last
// turn's terminal event comes ProcessExited alone.
func (s *session) closeIdle(t *testing.T) {
	t.Helper()
	from := s.quiet
	if from < 0 {
		from = s.rec.len()
	}
	s.close(t)
	if evs := s.rec.since(from); len(evs) != 1 {
		t.Errorf("after the last turn, closing the idle session delivered %s, want ProcessExited alone", describeAll(evs))
	}
}

// close closes the session and checks the contract of a closed one.
func (s *session) close(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	s.checkClosed(t)
}

// checkClosed checks a session whose Close has returned: Done is closed,
// ProcessExited was delivered once and last, no process is left.
func (s *session) checkClosed(t *testing.T) {
	t.Helper()
	select {
	case <-s.Done():
	default:
		t.Error("Done is open after Close returned")
	}
	all := s.rec.all()
	if n := count(all, isA[runtimes.ProcessExited]); n != 1 {
		t.Errorf("%d ProcessExited events after Close returned: %s", n, describeAll(all))
	} else if _, ok := all[len(all)-1].(runtimes.ProcessExited); !ok {
		t.Errorf("ProcessExited is not the last event: %s", describeAll(all))
	}
	if left := leftProcesses(s.mark); len(left) > 0 {
		t.Errorf("processes left after Close returned: %v", left)
	}
}

// --- Events ---------------------------------------------------------------------

// recorder keeps a session's events for tests to wait on.
type recorder struct {
	timeout time.Duration

	mu      sync.Mutex
	evs     []runtimes.Event
	changed chan struct{} // closed and replaced on every event
}

func newRecorder(timeout time.Duration) *recorder {
	return &recorder{timeout: timeout, changed: make(chan struct{})}
}

func (r *recorder) sink(ev runtimes.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.evs)
}

func (r *recorder) at(i int) runtimes.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.evs[i]
}

func (r *recorder) all() []runtimes.Event { return r.since(0) }

func (r *recorder) since(i int) []runtimes.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs[i:])
}

// await returns the index of the first event at or after from that
// matches, failing the test when none comes in time.
func (r *recorder) await(t *testing.T, from int, what string, match func(runtimes.Event) bool) int {
	t.Helper()
	deadline := time.NewTimer(r.timeout)
	defer deadline.Stop()
	for i := from; ; {
		r.mu.Lock()
		for ; i < len(r.evs); i++ {
			if match(r.evs[i]) {
				r.mu.Unlock()
				return i
			}
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %s came in %v; events: %s", what, r.timeout, describeAll(r.all()))
		}
	}
}

func isA[T runtimes.Event](ev runtimes.Event) bool { _, ok := ev.(T); return ok }

func isTerminal(ev runtimes.Event) bool {
	return isA[runtimes.TurnCompleted](ev) || isA[runtimes.TurnFailed](ev)
}

func isActivity(ev runtimes.Event, a rpc.Activity) bool {
	ac, ok := ev.(runtimes.ActivityChanged)
	return ok && ac.Activity == a
}

func count(evs []runtimes.Event, match func(runtimes.Event) bool) int {
	n := 0
	for _, ev := range evs {
		if match(ev) {
			n++
		}
	}
	return n
}

func describe(ev runtimes.Event) string {
	switch ev := ev.(type) {
	case runtimes.MessageDelta:
		return fmt.Sprintf("delta(%s %q)", ev.Phase, ev.Text)
	case runtimes.MessageCompleted:
		return fmt.Sprintf("message(%s %s %q)", ev.Message.Type, ev.Message.ID, text(ev.Message))
	case runtimes.ActivityChanged:
		return "activity(" + string(ev.Activity) + ")"
	case runtimes.PromptRequested:
		return "prompt(" + ev.RequestID + ")"
	case runtimes.PromptCancelled:
		return "cancelled(" + ev.RequestID + ")"
	case runtimes.TurnCompleted:
		return "completed(" + ev.StopReason + ")"
	case runtimes.TurnFailed:
		return "failed(" + ev.Code + ": " + ev.Message + ")"
	case runtimes.ProcessExited:
		return fmt.Sprintf("exited(%d %s)", ev.ExitCode, ev.Reason)
	}
	return fmt.Sprintf("%T%+v", ev, ev)
}

func describeAll(evs []runtimes.Event) string {
	parts := make([]string, len(evs))
	for i, ev := range evs {
		parts[i] = describe(ev)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// --- Transcripts helpers ----------------------------------------------------------

// watch records the session ids a Transcripts.Watch reports.
type watch struct {
	changed chan struct{} // one pending wake-up, never blocks the watcher

	mu   sync.Mutex
	ids  map[string]bool
	seen chan struct{} // closed and replaced when a new id is reported
}

func startWatch(t *testing.T, tr runtimes.Transcripts, dir string) *watch {
	t.Helper()
	w := &watch{changed: make(chan struct{}, 1), ids: map[string]bool{}, seen: make(chan struct{})}
	closer, err := tr.Watch(dir, func(id string) {
		select {
		case w.changed <- struct{}{}:
		default:
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.ids[id] {
			w.ids[id] = true
			close(w.seen)
			w.seen = make(chan struct{})
		}
	})
	if err != nil {
		t.Fatalf("Watch(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := closer.Close(); err != nil {
			t.Errorf("closing the watch: %v", err)
		}
	})
	return w
}

// await waits until id was reported.
func (w *watch) await(t *testing.T, id string, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		ok, seen := w.ids[id], w.seen
		ids := fmt.Sprint(w.ids)
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-seen:
		case <-deadline.C:
			t.Fatalf("Watch never reported session %s (it reported %s)", id, ids)
		}
	}
}

// bin is a runtimes.Bin in a test's temporary directory.
type bin struct {
	dir string

	mu  sync.Mutex
	put []string
}

func newBin(t *testing.T) *bin { return &bin{dir: t.TempDir()} }

// Put moves path into the bin under a fresh name, never replacing a file.
func (b *bin) Put(path string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	dst := filepath.Join(b.dir, fmt.Sprintf("%d-%s", len(b.put), filepath.Base(path)))
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("bin: %s exists", dst)
	}
	if err := os.Rename(path, dst); err != nil {
		return err
	}
	b.put = append(b.put, path)
	return nil
}

func (b *bin) files() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.put)
}
