package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/workspaces"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// memAdapter is an in-memory runtime the test drives event by event, so
// the engine's rules can be checked without any process.
type memAdapter struct {
	mu       sync.Mutex
	sessions []*memSession
	started  chan *memSession
	entered  chan struct{} // when set, Start says it began, then waits for gate
	gate     chan struct{}
	dieEarly bool // the process exits before Start returns
	// choosesIDs makes it a Codex: it names new sessions itself and
	// refuses a client's id.
	choosesIDs bool
	named      int
}

func newMem() *memAdapter { return &memAdapter{started: make(chan *memSession, 16)} }

func (a *memAdapter) Info() runtimes.Info {
	return runtimes.Info{ID: "mem", DisplayName: "Mem", Features: runtimes.Features{IDKnownAtStart: true},
		ClientIDs: !a.choosesIDs}
}
func (a *memAdapter) Detect(context.Context) runtimes.Availability {
	return runtimes.Availability{Installed: true, Version: "1"}
}
func (a *memAdapter) Transcripts() runtimes.Transcripts { return nil }
func (a *memAdapter) Start(_ context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	if a.entered != nil {
		a.entered <- struct{}{}
		<-a.gate
	}
	a.mu.Lock()
	id := req.SessionID
	switch {
	case a.choosesIDs && id != "" && !req.Resume:
		a.mu.Unlock()
		return nil, errors.New("mem chooses its ids")
	case id == "":
		a.named++
		id = fmt.Sprintf("mem-%d", a.named)
	}
	s := &memSession{id: id, resume: req.Resume, sink: sink, done: make(chan struct{}),
		turns: make(chan string, 16), answers: make(chan runtimes.Answer, 16)}
	a.sessions = append(a.sessions, s)
	dieEarly := a.dieEarly
	a.mu.Unlock()
	if dieEarly {
		s.exit(1)
	}
	a.started <- s
	return s, nil
}

type memSession struct {
	id      string
	resume  bool
	sink    runtimes.Sink
	turns   chan string
	answers chan runtimes.Answer
	once    sync.Once
	done    chan struct{}
}

func (s *memSession) ID() string { return s.id }
func (s *memSession) Send(_ context.Context, t runtimes.Turn) error {
	select {
	case <-s.done:
		return runtimes.ErrExited
	default:
	}
	s.turns <- t.Prompt
	return nil
}
func (s *memSession) Respond(_ context.Context, id string, a runtimes.Answer) error {
	if id == "gone" { // the runtime withdrew it while the answer was on its way
		return runtimes.ErrNoRequest
	}
	s.answers <- a
	return nil
}
func (s *memSession) Interrupt(context.Context) error {
	s.sink(runtimes.TurnFailed{Code: runtimes.CodeInterrupted, Message: "interrupted"})
	return nil
}
func (s *memSession) Close(context.Context) error { s.exit(-1); return nil }
func (s *memSession) Done() <-chan struct{}       { return s.done }
func (s *memSession) exit(code int) {
	s.once.Do(func() {
		s.sink(runtimes.ProcessExited{ExitCode: code})
		close(s.done)
	})
}

// recorder is a Watcher that keeps what it was sent.
type recorder struct {
	id  string
	mu  sync.Mutex
	evs []map[string]any
	cut string
	got chan struct{}
}

func newRecorder(id string) *recorder { return &recorder{id: id, got: make(chan struct{}, 1000)} }

func (r *recorder) ClientID() string { return r.id }
func (r *recorder) Deliver(ev *Event) {
	var n struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(ev.Frame, &n); err != nil {
		panic(err)
	}
	n.Params["_method"] = n.Method
	r.mu.Lock()
	r.evs = append(r.evs, n.Params)
	r.mu.Unlock()
	r.got <- struct{}{}
}

func (r *recorder) DeliverWait(_ context.Context, ev *Event) error {
	r.Deliver(ev)
	return nil
}

func (r *recorder) Cut(reason string) {
	r.mu.Lock()
	r.cut = reason
	r.mu.Unlock()
}

// awaitCount waits until the recorder holds n events.
func (r *recorder) awaitCount(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for len(r.events()) < n {
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("got %d events, want %d", len(r.events()), n)
		}
	}
}

func (r *recorder) events() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.evs...)
}

// await waits until the recorder holds an event of the given type.
func (r *recorder) await(t *testing.T, method string) map[string]any {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		for _, ev := range r.events() {
			if ev["_method"] == method {
				return ev
			}
		}
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("%s never arrived; got %v", method, r.events())
		}
	}
}

func (r *recorder) count(method string) int {
	n := 0
	for _, ev := range r.events() {
		if ev["_method"] == method {
			n++
		}
	}
	return n
}

func newEngine(t *testing.T, a runtimes.Adapter, tweak func(*Config)) (*Engine, string) {
	t.Helper()
	reg, err := registry.New(a)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := workspaces.Open(filepath.Join(dir, "ws.json"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Add(dir, "", false)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Registry: reg, Workspaces: store, TrashDir: filepath.Join(dir, "trash"), IdleTimeout: -1}
	if tweak != nil {
		tweak(&cfg)
	}
	e := New(cfg)
	t.Cleanup(func() { e.Close(context.Background()) })
	return e, ws.ID
}

func start(t *testing.T, e *Engine, a *memAdapter, w Watcher, wsID string) (string, *memSession) {
	t.Helper()
	res, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID})
	if err != nil {
		t.Fatal(err)
	}
	return res.SessionID, <-a.started
}

func TestExactlyOneTerminalEventPerTurn(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "again", SessionID: id}); !isCode(err, rpc.CodeSessionBusy) {
		t.Fatalf("second send during a turn = %v, want session busy", err)
	}
	ms.sink(runtimes.TurnCompleted{StopReason: "end_turn"})
	ms.sink(runtimes.TurnFailed{Code: "runtime_error", Message: "late"}) // a confused runtime
	ms.sink(runtimes.TurnCompleted{StopReason: "dup"})
	w.await(t, "event/turn_completed")
	if n := w.count("event/turn_completed") + w.count("event/error"); n != 1 {
		t.Fatalf("%d terminal events for one turn", n)
	}
	// A crash mid-turn ends the turn with one error, then session_end.
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "crash", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.exit(3)
	w.await(t, "event/session_end")
	if n := w.count("event/error"); n != 1 {
		t.Fatalf("crash produced %d error events, want 1", n)
	}
	st, _ := e.State(id)
	if st.Status != rpc.StatusError || st.IsRunning {
		t.Fatalf("after crash: %+v", st)
	}
	// The next send resumes the session in a new process.
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "back", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	if again := <-a.started; !again.resume {
		t.Fatal("process restarted without resuming the session")
	}
	assertSeqsContiguous(t, w.events())
}

// deltas makes the runtime emit n text deltas.
func deltas(ms *memSession, n int) {
	for range n {
		ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "x"})
	}
}

func assertSeqsContiguous(t *testing.T, evs []map[string]any) {
	t.Helper()
	for i, ev := range evs {
		if got := int64(ev["seq"].(float64)); got != int64(i+1) {
			t.Fatalf("event %d (%s) has seq %d", i, ev["_method"], got)
		}
	}
}

func isCode(err error, code int64) bool {
	var e *rpc.Error
	return errors.As(err, &e) && e.Code == code
}

func TestReplayHasNoGapNoDuplicate(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	first := newRecorder("c1")
	id, ms := start(t, e, a, first, wsID)
	for i := range 20 {
		ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: string(rune('a' + i))})
	}
	seen := int64(len(first.events()))
	e.Unwatch(first, id) // the client drops
	deltas(ms, 10)
	back := newRecorder("c1-again")
	res, replay, err := e.Watch(context.Background(), back, wsID, id, "", &seen, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Gap || res.Replayed != 10 || res.LastSeq != seen+10 || replay == nil {
		t.Fatalf("watch result %+v", res)
	}
	// Events emitted between the reply and the replay are not lost.
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "before replay"})
	replay()
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "live"})
	back.awaitCount(t, 12)
	all := append(first.events(), back.events()...)
	assertSeqsContiguous(t, all)
}

// slowWatcher takes replayed events one at a time, when the test lets it,
// like a client whose send queue is full.
type slowWatcher struct {
	*recorder
	room chan struct{}
}

func (s slowWatcher) DeliverWait(ctx context.Context, ev *Event) error {
	select {
	case <-s.room:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.Deliver(ev)
	return nil
}

func TestReplayLongerThanTheClientCanTakeAtOnce(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 50)
	w := slowWatcher{newRecorder("slow"), make(chan struct{})}
	zero := int64(0)
	_, replay, err := e.Watch(context.Background(), w, wsID, id, "", &zero, "")
	if err != nil {
		t.Fatal(err)
	}
	replay()
	// The session goes on while the client is catching up: nothing waits
	// for it, and it misses nothing.
	for i := range 100 {
		if i%2 == 0 {
			w.room <- struct{}{}
		}
		ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "live"})
	}
	close(w.room)
	w.awaitCount(t, 151)
	assertSeqsContiguous(t, w.events())
}

func TestGapWhenBufferNoLongerReachesBack(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.ReplayEvents, c.ReplayMax, c.ReplayAge = 5, 5, time.Nanosecond })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	deltas(ms, 20)
	zero := int64(1)
	res, replay, err := e.Watch(context.Background(), newRecorder("late"), wsID, id, "", &zero, "")
	if err != nil || !res.Gap || res.Replayed != 0 || replay != nil {
		t.Fatalf("watch = %+v, %v; want gap", res, err)
	}
	future := int64(1_000_000) // a seq from another epoch
	res, _, _ = e.Watch(context.Background(), newRecorder("other-epoch"), wsID, id, "", &future, "")
	if !res.Gap {
		t.Fatal("a seq beyond last_seq must report a gap")
	}
}

func TestPromptResentToNewWatcherAndAnsweredOnce(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	c1, c2 := newRecorder("c1"), newRecorder("c2")
	id, ms := start(t, e, a, c1, wsID)
	if _, err := e.Send(context.Background(), c1, SendOptions{Prompt: "do it", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.PromptRequested{RequestID: "r1", Permission: &runtimes.PermissionPrompt{
		Kind: rpc.PermBash, ToolName: "Bash", Target: "ls"}})
	c1.await(t, "event/pty_permission")
	if _, _, err := e.Watch(context.Background(), c2, wsID, id, "", nil, ""); err != nil {
		t.Fatal(err)
	}
	if ev := c2.await(t, "event/pty_permission"); ev["request_id"] != "r1" {
		t.Fatalf("re-sent prompt = %v", ev)
	}
	st, _ := e.State(id)
	if !st.WaitingForInput || len(st.Pending) != 1 {
		t.Fatalf("state while pending: %+v", st)
	}
	// Two clients answer at once: exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, w := range []*recorder{c1, c2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.Respond(context.Background(), w, id, "", rpc.RespondPermission, "r1", "yes")
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("both or neither answer won: %v", errs)
	}
	loser := errs[0]
	if loser == nil {
		loser = errs[1]
	}
	if !isCode(loser, rpc.CodeRequestNotFound) {
		t.Fatalf("losing answer = %v", loser)
	}
	if got := <-ms.answers; got.Decision != runtimes.Allow {
		t.Fatalf("runtime got %+v", got)
	}
	for _, w := range []*recorder{c1, c2} {
		if ev := w.await(t, "event/pty_permission_resolved"); ev["decision"] != "allow" {
			t.Fatalf("resolved = %v", ev)
		}
	}
	if len(ms.answers) != 0 {
		t.Fatal("runtime was answered twice")
	}
}

func TestStopEndsTurnWithSessionStopped(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "long", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.PromptRequested{RequestID: "q", Question: &runtimes.QuestionPrompt{}})
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	w.await(t, "event/session_stopped")
	if w.count("event/error")+w.count("event/turn_completed") != 0 {
		t.Fatal("stop must end the turn with session_stopped only")
	}
	if ev := w.await(t, "event/pty_permission_resolved"); ev["decision"] != "cancelled" {
		t.Fatalf("pending prompt not cancelled: %v", ev)
	}
	st, _ := e.State(id)
	if st.Status != rpc.StatusStopped || st.IsRunning {
		t.Fatalf("after stop: %+v", st)
	}
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if n := w.count("event/session_stopped"); n != 1 {
		t.Fatalf("%d session_stopped events", n)
	}
}

func TestIdleProcessReapedAndCapEnforced(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.MaxProcesses = 1 })
	w := newRecorder("c1")
	id1, ms1 := start(t, e, a, w, wsID)
	id2, _ := start(t, e, a, w, wsID) // over the cap: the idle first one is ended
	select {
	case <-ms1.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("idle process was not reaped when the cap was reached")
	}
	if st, _ := e.State(id1); st.Status != rpc.StatusRunning || st.IsRunning {
		t.Fatalf("reaped session must stay resumable: %+v", st)
	}
	if w.count("event/session_end") != 0 {
		t.Fatal("reaping an idle process is not a session end")
	}
	_ = id2
	if e.Running() != 1 {
		t.Fatalf("%d processes running, cap is 1", e.Running())
	}
}

func TestWorkspaceSubscribersGetLifecycle(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	sub := newRecorder("sub")
	if ids, err := e.Subscribe(sub, wsID); err != nil || len(ids) != 1 {
		t.Fatalf("subscribe = %v, %v", ids, err)
	}
	id, _ := start(t, e, a, newRecorder("owner"), wsID)
	if ev := sub.await(t, "event/session_start"); ev["session_id"] != id {
		t.Fatalf("session_start = %v", ev)
	}
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	sub.await(t, "event/session_stopped")
	if sub.count("event/pty_state") != 0 {
		t.Fatal("subscribers get lifecycle events, not every event")
	}
}

func TestDeleteMovesTranscriptToTrash(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	path := filepath.Join(a.dir, "s1.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Delete(context.Background(), rpc.SessionRefParams{WorkspaceID: wsID, SessionID: "../x"}); !isCode(err, rpc.CodeInvalidParams) {
		t.Fatalf("traversal id = %v", err)
	}
	if _, err := e.Delete(context.Background(), rpc.SessionRefParams{WorkspaceID: wsID, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("transcript still in place")
	}
	matches, _ := filepath.Glob(filepath.Join(e.cfg.TrashDir, "mem", wsID, "*s1.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("trash holds %v", matches)
	}
}

type transcriptMem struct {
	*memAdapter
	dir   string
	tails chan tailOf
}

func (a *transcriptMem) Transcripts() runtimes.Transcripts {
	if a.tails == nil {
		a.tails = make(chan tailOf, 4)
	}
	return memTranscripts{a.dir, a.tails}
}

type memTranscripts struct {
	dir   string
	tails chan tailOf
}

func (m memTranscripts) List(context.Context, string) ([]runtimes.Summary, error) {
	files, _ := filepath.Glob(filepath.Join(m.dir, "*.jsonl"))
	var out []runtimes.Summary
	for _, f := range files {
		out = append(out, runtimes.Summary{SessionID: strings.TrimSuffix(filepath.Base(f), ".jsonl"),
			Summary: "outside", MessageCount: 1, LastUpdated: time.Now().UTC().Format(time.RFC3339)})
	}
	return out, nil
}
func (m memTranscripts) Messages(context.Context, string, string, int, int, bool) ([]rpc.Message, int, error) {
	return nil, 0, nil
}
func (m memTranscripts) Tail(_ context.Context, _, id string, emit func(rpc.Message)) (io.Closer, error) {
	t := &memTail{closed: make(chan struct{})}
	m.tails <- tailOf{id, emit, t}
	return t, nil
}

type tailOf struct {
	id   string
	emit func(rpc.Message)
	t    *memTail
}

type memTail struct {
	once   sync.Once
	closed chan struct{}
}

func (t *memTail) Close() error { t.once.Do(func() { close(t.closed) }); return nil }
func (m memTranscripts) layout() kit.FilePerSession {
	return kit.FilePerSession{Folder: func(string) string { return m.dir }, Ext: ".jsonl"}
}
func (m memTranscripts) Has(ctx context.Context, dir, id string) bool {
	return m.layout().Has(ctx, dir, id)
}
func (m memTranscripts) Trash(ctx context.Context, dir, id string, bin runtimes.Bin) error {
	return m.layout().Trash(ctx, dir, id, bin)
}
func (m memTranscripts) Watch(dir string, changed func(string)) (io.Closer, error) {
	return m.layout().Watch(dir, changed)
}

func TestSubscribersNoticeSessionsRunOutside(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	sub := newRecorder("sub")
	if _, err := e.Subscribe(sub, wsID); err != nil {
		t.Fatal(err)
	}
	// A CLI in a terminal writes its transcript.
	if err := os.WriteFile(filepath.Join(a.dir, "ext-1.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ev := sub.await(t, "event/session_updated")
	if ev["session_id"] != "ext-1" || ev["agent_type"] != "mem" || ev["summary"] != "outside" {
		t.Fatalf("session_updated = %v", ev)
	}
	if _, err := e.Unsubscribe(sub, wsID); err != nil {
		t.Fatal(err)
	}
	e.subMu.Lock()
	left := len(e.notifiers)
	e.subMu.Unlock()
	if left != 0 {
		t.Fatal("transcript watcher outlived its last subscriber")
	}
}

func TestEscapeInterruptsARunningTurn(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if err := e.Input(context.Background(), w, id, "", "escape"); !isCode(err, rpc.CodeRequestNotFound) {
		t.Fatalf("escape with no turn and no prompt = %v", err)
	}
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "long", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	if err := e.Input(context.Background(), w, id, "", "escape"); err != nil {
		t.Fatal(err)
	}
	if ev := w.await(t, "event/error"); ev["code"] != runtimes.CodeInterrupted {
		t.Fatalf("terminal event = %v", ev)
	}
	if st, _ := e.State(id); !st.IsRunning || st.Activity != rpc.ActivityIdle {
		t.Fatalf("after interrupt the process stays, idle: %+v", st)
	}
}

func TestStartAgainAfterStop(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, _ := start(t, e, a, w, wsID)
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	res, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, SessionID: id})
	if err != nil || res.Status != rpc.StartStarted || res.Source != "resumed" {
		t.Fatalf("start of a stopped session = %+v, %v", res, err)
	}
	<-a.started
	if st, _ := e.State(id); st.Status != rpc.StatusRunning || !st.IsRunning {
		t.Fatalf("after start again: %+v", st)
	}
	res, err = e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, SessionID: id})
	if err != nil || res.Status != rpc.StartExisting {
		t.Fatalf("start of a running session = %+v, %v", res, err)
	}
}

func TestIdleProcessEndsAfterIdleTimeout(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.IdleTimeout = time.Millisecond })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.TurnCompleted{StopReason: "end_turn"}) // idle from here on
	select {
	case <-ms.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("idle process was not ended")
	}
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "again", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	if again := <-a.started; !again.resume {
		t.Fatal("the next send did not resume the session")
	}
}

func TestExternalTailEndsWithItsLastWatcher(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	if err := os.WriteFile(filepath.Join(a.dir, "ext.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w1, w2 := newRecorder("c1"), newRecorder("c2")
	if _, _, err := e.Watch(context.Background(), w1, wsID, "ext", "", nil, ""); err != nil {
		t.Fatal(err)
	}
	tail := <-a.tails
	if _, _, err := e.Watch(context.Background(), w2, wsID, "ext", "", nil, ""); err != nil {
		t.Fatal(err)
	}
	tail.emit(rpc.Message{ID: "m1", Type: rpc.MessageAssistant, Message: rpc.MessageBody{Role: "assistant"}})
	for _, w := range []*recorder{w1, w2} {
		if ev := w.await(t, "event/claude_message"); ev["seq"] != float64(1) || ev["session_id"] != "ext" {
			t.Fatalf("tailed message = %v", ev)
		}
	}
	if _, err := e.State("ext"); !isCode(err, rpc.CodeSessionNotFound) {
		t.Fatal("a session run outside cdevd is not one cdevd runs")
	}
	e.Unwatch(w1, "ext")
	select {
	case <-tail.t.closed:
		t.Fatal("tail ended while a watcher remained")
	default:
	}
	e.Detach(w2)
	select {
	case <-tail.t.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("tail outlived its last watcher")
	}
	if e.lookup("ext") != nil {
		t.Fatal("the external session was not forgotten")
	}
}

func TestOneProcessWhileStarting(t *testing.T) {
	a := newMem()
	a.entered, a.gate = make(chan struct{}, 2), make(chan struct{})
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id := "3f5b8d2e-8c1a-4d8e-9f00-0123456789ab" // client-chosen
	started := make(chan error, 1)
	go func() {
		_, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, SessionID: id})
		started <- err
	}()
	<-a.entered // the session is registered and its process is starting
	sent := make(chan error, 1)
	go func() {
		_, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: id})
		sent <- err
	}()
	close(a.gate)
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if n := len(a.entered); n != 0 {
		t.Fatalf("%d more processes started for one session id", n)
	}
}

func TestProcessDeadBeforeStartReturns(t *testing.T) {
	a := newMem()
	a.dieEarly = true
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	if _, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID}); !isCode(err, rpc.CodeInternalError) {
		t.Fatalf("start of a CLI that died at once = %v, want -32603", err)
	}
	<-a.started
	a.mu.Lock()
	a.dieEarly = false
	a.mu.Unlock()
	id, _ := start(t, e, a, w, wsID)
	if st, _ := e.State(id); !st.IsRunning {
		t.Fatalf("a later start is not stuck: %+v", st)
	}
}

func TestAnswerToAWithdrawnPromptResolvesIt(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "go", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.PromptRequested{RequestID: "gone", Permission: &runtimes.PermissionPrompt{ToolName: "Bash"}})
	w.await(t, "event/pty_permission")
	if err := e.Respond(context.Background(), w, id, "", rpc.RespondPermission, "gone", "yes"); !isCode(err, rpc.CodeRequestNotFound) {
		t.Fatalf("answer to a withdrawn prompt = %v", err)
	}
	if ev := w.await(t, "event/pty_permission_resolved"); ev["decision"] != "cancelled" {
		t.Fatalf("resolved = %v", ev)
	}
	if st, _ := e.State(id); st.WaitingForInput || len(st.Pending) != 0 {
		t.Fatalf("the withdrawn prompt still waits: %+v", st)
	}
	if err := e.Respond(context.Background(), w, id, "", rpc.RespondPermission, "", "maybe"); !isCode(err, rpc.CodeRequestNotFound) {
		t.Fatalf("nothing pending: %v", err)
	}
}

func TestSecondReplayForTheSameClientSupersedesTheFirst(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 5)
	w := slowWatcher{newRecorder("c"), make(chan struct{})}
	zero, three := int64(0), int64(3)
	_, first, _ := e.Watch(context.Background(), w, wsID, id, "", &zero, "")
	first()
	w.room <- struct{}{} // the first replay delivers one event, then waits
	w.awaitCount(t, 1)
	_, second, _ := e.Watch(context.Background(), w, wsID, id, "", &three, "")
	second()
	close(w.room)
	ms.sink(runtimes.MessageDelta{MessageID: "m", Phase: rpc.PhaseText, Text: "live"})
	w.awaitCount(t, 1+4) // seq 1 from the first; 4..7 from the second and live
	// The superseded replay stopped: nothing arrives twice or out of order.
	var seqs []float64
	for _, ev := range w.events() {
		seqs = append(seqs, ev["seq"].(float64))
	}
	if !slices.Equal(seqs, []float64{1, 4, 5, 6, 7}) {
		t.Fatalf("seqs delivered %v, want [1 4 5 6 7]", seqs)
	}
}

func TestUnwatchStopsAReplayAtOnce(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 50)
	w := slowWatcher{newRecorder("c"), make(chan struct{})}
	zero := int64(0)
	_, replay, _ := e.Watch(context.Background(), w, wsID, id, "", &zero, "")
	replay()
	w.room <- struct{}{}
	w.awaitCount(t, 1)
	e.Unwatch(w, id)
	close(w.room)                 // room for everything: a replay still running would use it
	e.Close(context.Background()) // waits for the replay goroutine to end
	if n := len(w.events()); n != 1 {
		t.Fatalf("%d events after unwatch, want the 1 before it", n)
	}
}

func TestSendWaitingOnAFailedStartFindsNoSession(t *testing.T) {
	a := &failingFirst{memAdapter: newMem(), entered: make(chan struct{}), gate: make(chan struct{})}
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c")
	id := "0a4f7a7c-4b6e-4f5e-8a2c-9b1d2e3f4a5b"
	started := make(chan error, 1)
	go func() {
		_, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, SessionID: id})
		started <- err
	}()
	<-a.entered
	sent := make(chan error, 1)
	go func() {
		_, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: id})
		sent <- err
	}()
	close(a.gate)
	if err := <-started; err == nil {
		t.Fatal("start should have failed")
	}
	if err := <-sent; err == nil {
		t.Fatal("a send to the session whose start failed must fail")
	}
	if n := len(a.started); n != 0 {
		t.Fatalf("%d processes started for a forgotten session", n)
	}
}

// failingFirst fails its first Start, after the test let it.
type failingFirst struct {
	*memAdapter
	entered, gate chan struct{}
	once          sync.Once
}

func (f *failingFirst) Start(ctx context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	first := false
	f.once.Do(func() { first = true })
	if first {
		f.entered <- struct{}{}
		<-f.gate
		return nil, errors.New("not logged in")
	}
	return f.memAdapter.Start(ctx, req, sink)
}

func TestWatchFromAnotherEpochIsAGap(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	id, ms := start(t, e, a, newRecorder("owner"), wsID)
	deltas(ms, 5)
	two := int64(2)
	res, replay, err := e.Watch(context.Background(), newRecorder("c"), wsID, id, "", &two, "old-epoch")
	if err != nil || !res.Gap || replay != nil {
		t.Fatalf("watch with another epoch = %+v, %v", res, err)
	}
	res, replay, _ = e.Watch(context.Background(), newRecorder("d"), wsID, id, "", &two, e.Epoch())
	if res.Gap || replay == nil {
		t.Fatalf("watch with this epoch = %+v", res)
	}
	replay()
}

func TestActivateChecksTheWorkspace(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	other, err := e.ws.Add(t.TempDir(), "other", false)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := start(t, e, a, newRecorder("c"), wsID)
	if err := e.Activate(other.ID, id, ""); !isCode(err, rpc.CodeSessionNotFound) {
		t.Fatalf("activating a session in another workspace = %v", err)
	}
	if err := e.Activate(wsID, id, ""); err != nil {
		t.Fatal(err)
	}
}

func TestQuietExitWhileIdleIsStopped(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c")
	id, ms := start(t, e, a, w, wsID)
	ms.exit(0)
	w.await(t, "event/session_end")
	if st, _ := e.State(id); st.Status != rpc.StatusStopped || st.IsRunning {
		t.Fatalf("after a quiet exit: %+v", st)
	}
}

func TestSubscribersNoticeATranscriptDirectoryCreatedLater(t *testing.T) {
	parent := t.TempDir()
	a := &transcriptMem{memAdapter: newMem(), dir: filepath.Join(parent, "not-yet")}
	e, wsID := newEngine(t, a, nil)
	sub := newRecorder("sub")
	if _, err := e.Subscribe(sub, wsID); err != nil {
		t.Fatal(err)
	}
	// The runtime runs here for the first time: it makes its directory.
	if err := os.Mkdir(a.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.dir, "first.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ev := sub.await(t, "event/session_updated"); ev["session_id"] != "first" {
		t.Fatalf("session_updated = %v", ev)
	}
}

func TestTakeoverKeepsTheCallerAndCutsTheOthers(t *testing.T) {
	a := &transcriptMem{memAdapter: newMem(), dir: t.TempDir()}
	e, wsID := newEngine(t, a, nil)
	if err := os.WriteFile(filepath.Join(a.dir, "ext.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	caller, other := newRecorder("caller"), newRecorder("other")
	for _, w := range []*recorder{caller, other} {
		if _, _, err := e.Watch(context.Background(), w, wsID, "ext", "", nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	tail := <-a.tails
	// The caller resumes the session in cdevd.
	if _, err := e.Send(context.Background(), caller, SendOptions{Prompt: "take over", SessionID: "ext", WorkspaceID: wsID}); err != nil {
		t.Fatal(err)
	}
	<-tail.t.closed
	caller.mu.Lock()
	cutCaller := caller.cut
	caller.mu.Unlock()
	other.mu.Lock()
	cutOther := other.cut
	other.mu.Unlock()
	if cutCaller != "" || cutOther == "" {
		t.Fatalf("caller cut %q, other cut %q: want only the other cut", cutCaller, cutOther)
	}
	if ev := caller.await(t, "event/session_start"); ev["session_id"] != "ext" {
		t.Fatalf("caller did not see the run start: %v", ev)
	}
}

func TestQuietSessionGivesBackItsReplayBuffer(t *testing.T) {
	// Once stopped and unwatched for ReplayAge, a session keeps its state
	// and its seq, not its events: memory does not grow with every session
	// the daemon ever ran.
	const age = 20 * time.Millisecond
	a := newMem()
	e, wsID := newEngine(t, a, func(c *Config) { c.ReplayAge = age })
	w := newRecorder("c1")
	id, ms := start(t, e, a, w, wsID)
	deltas(ms, 100)
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	w.await(t, "event/session_stopped")
	e.Unwatch(w, id)
	s := e.lookup(id)
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(age / 4)
	defer tick.Stop()
	for {
		s.mu.Lock()
		n, last := s.events.n, s.seq
		s.mu.Unlock()
		if n == 0 {
			if last < 100 {
				t.Fatalf("seq %d after 100 events", last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events still held by a session quiet for %v", n, 10*time.Second)
		}
		<-tick.C
	}

	last := int64(len(w.events()))
	early := int64(1)
	res, replay, err := e.Watch(context.Background(), newRecorder("late"), wsID, id, "", &early, "")
	if err != nil || !res.Gap || res.Replayed != 0 || replay != nil || res.LastSeq != last {
		t.Fatalf("watch from seq 1 = %+v, %v; want a gap at %d", res, err, last)
	}
	back := newRecorder("back")
	res, _, err = e.Watch(context.Background(), back, wsID, id, "", &last, "")
	if err != nil || res.Gap || res.Replayed != 0 {
		t.Fatalf("watch from the last seq = %+v, %v; want no gap, nothing to replay", res, err)
	}
	st, err := e.State(id)
	if err != nil || st.Status != rpc.StatusStopped || st.LastSeq != last {
		t.Fatalf("state = %+v, %v", st, err)
	}
}

// A runtime that chooses its sessions' ids (Codex, Gemini): session/start
// returns the id the runtime gave, every event carries it, a client's id
// for a new session is refused with data saying why, and a session that
// never had a turn cannot come back under its id once its process ended.
func TestRuntimeChoosesTheID(t *testing.T) {
	a := newMem()
	a.choosesIDs = true
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	res, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID})
	if err != nil {
		t.Fatal(err)
	}
	ms := <-a.started
	if res.SessionID != ms.id || !strings.HasPrefix(res.SessionID, "mem-") {
		t.Fatalf("session/start returned %q; the runtime named it %q", res.SessionID, ms.id)
	}
	if ev := w.await(t, "event/session_start"); ev["session_id"] != ms.id {
		t.Fatalf("session_start carries %v", ev["session_id"])
	}
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: ms.id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.TurnCompleted{StopReason: "end_turn"})
	if ev := w.await(t, "event/turn_completed"); ev["session_id"] != ms.id {
		t.Fatalf("turn_completed carries %v", ev["session_id"])
	}

	_, err = e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, SessionID: "0b9c3d6e-1111-4222-8333-444455556666"})
	var rerr *rpc.Error
	if !errors.As(err, &rerr) || rerr.Code != rpc.CodeInvalidParams {
		t.Fatalf("a client's id for a new session = %v, want -32602", err)
	}
	if d := rerr.Data.(map[string]any); d["field"] != "session_id" || d["agent_type"] != "mem" || d["reason"] == "" {
		t.Fatalf("error data %v does not say why", d)
	}

	// Started, never sent to, stopped: nothing to resume.
	res, err = e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID})
	if err != nil {
		t.Fatal(err)
	}
	<-a.started
	if _, err := e.Stop(context.Background(), res.SessionID, ""); err != nil {
		t.Fatal(err)
	}
	_, err = e.Send(context.Background(), w, SendOptions{Prompt: "late", SessionID: res.SessionID})
	if !errors.As(err, &rerr) || rerr.Code != rpc.CodeSessionNotFound || rerr.Data.(map[string]any)["reason"] != "ended_before_first_turn" {
		t.Fatalf("send to a session that ended before its first turn = %v", err)
	}
	if len(a.started) != 0 {
		t.Fatal("a process was started for a session that cannot be resumed")
	}
	// The one with a turn resumes under its id.
	if _, err := e.Stop(context.Background(), ms.id, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "again", SessionID: ms.id}); err != nil {
		t.Fatal(err)
	}
	if again := <-a.started; again.id != ms.id || !again.resume {
		t.Fatalf("resumed as %q (resume %v), want %q", again.id, again.resume, ms.id)
	}
}

// A session whose directory was deleted behind cdevd's back cannot start a
// process there: the send says so, and nothing is started.
func TestSendToASessionWhoseDirectoryIsGone(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	ws, _ := e.ws.Get(wsID)
	sub := filepath.Join(ws.Path, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	w := newRecorder("c1")
	res, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, Cwd: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	<-a.started
	if _, err := e.Stop(context.Background(), res.SessionID, ""); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	_, err = e.Send(context.Background(), w, SendOptions{Prompt: "hi", SessionID: res.SessionID})
	if !isCode(err, rpc.CodeInvalidPath) {
		t.Fatalf("send into a deleted directory = %v, want %d", err, rpc.CodeInvalidPath)
	}
	if len(a.started) != 0 {
		t.Fatal("a process was started in a deleted directory")
	}
}
