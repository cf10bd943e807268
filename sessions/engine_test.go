package sessions

// The engine's test doubles (an in-memory runtime and its transcripts, a
// recording watcher) and the helpers the engine's tests share.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
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
