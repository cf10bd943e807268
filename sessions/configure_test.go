package sessions

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// tunable is the in-memory runtime with a CLI that offers models and
// efforts and switches them in a running session; it records what each
// turn and each process start asked for.
type tunable struct {
	*memAdapter
	mu     sync.Mutex
	turns  []runtimes.Turn
	starts []runtimes.StartRequest
}

func newTunable() *tunable { return &tunable{memAdapter: newMem()} }

// newTunableEngine is an engine on a, once the registry has asked a's
// offer (the daemon warms the registry at start; initialize waits for it).
func newTunableEngine(t *testing.T, a *tunable) (*Engine, string) {
	t.Helper()
	e, wsID := newEngine(t, a, nil)
	e.reg.(*registry.Registry).Snapshot(context.Background())
	if _, ok := e.reg.Offer("mem"); !ok {
		t.Fatal("the registry has no offer after detection")
	}
	return e, wsID
}

func (a *tunable) Info() runtimes.Info {
	i := a.memAdapter.Info()
	i.Features.Configure = true
	i.PermissionModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionPlan, rpc.PermissionBypass}
	i.ConfigureModes = []rpc.PermissionMode{rpc.PermissionDefault, rpc.PermissionPlan}
	return i
}

func (a *tunable) Offer(context.Context) (runtimes.Offer, error) {
	return runtimes.Offer{DefaultModel: "big", DefaultEffort: "medium", Models: []runtimes.Model{
		{ID: "big", Aliases: []string{"big-2026"}, Efforts: []string{"low", "medium", "high"}, DefaultEffort: "medium"},
		{ID: "small"},
	}}, nil
}

func (a *tunable) Start(ctx context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	a.mu.Lock()
	a.starts = append(a.starts, req)
	a.mu.Unlock()
	s, err := a.memAdapter.Start(ctx, req, sink)
	if err != nil {
		return nil, err
	}
	return &tunableSession{memSession: s.(*memSession), a: a}, nil
}

func (a *tunable) lastTurn() runtimes.Turn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turns[len(a.turns)-1]
}

type tunableSession struct {
	*memSession
	a *tunable
}

func (s *tunableSession) Send(ctx context.Context, t runtimes.Turn) error {
	s.a.mu.Lock()
	s.a.turns = append(s.a.turns, t)
	s.a.mu.Unlock()
	return s.memSession.Send(ctx, t)
}

// turn sends prompt with o's configuration and ends the turn.
func turn(t *testing.T, e *Engine, w Watcher, ms *memSession, id string, c Configuration) {
	t.Helper()
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "p", SessionID: id, Configuration: c}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	ms.sink(runtimes.TurnCompleted{StopReason: "end_turn"})
}

func supported(err error) []string {
	data, _ := rpc.AsError(err).Data.(map[string]any)
	list, _ := data["supported"].([]string)
	return list
}

func TestConfigureFromTheNextTurn(t *testing.T) {
	a := newTunable()
	e, wsID := newTunableEngine(t, a)
	w := newRecorder("c1")
	res, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, Model: "big", Effort: "low"})
	if err != nil {
		t.Fatal(err)
	}
	ms := <-a.started
	id := res.SessionID
	if st := a.starts[0]; st.Model != "big" || st.Effort != "low" {
		t.Fatalf("start asked %+v", st)
	}
	turn(t, e, w, ms, id, Configuration{})
	if tr := a.lastTurn(); tr.Model != "big" || tr.Effort != "low" {
		t.Errorf("a plain turn carries %+v, want the session's big/low", tr)
	}
	w.await(t, "event/turn_completed")

	// During a turn: the running turn keeps what it started with.
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "long", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-ms.turns
	got, err := e.Configure(context.Background(), rpc.SessionConfigureParams{SessionID: id, Model: "small", PermissionMode: rpc.PermissionPlan})
	if err != nil {
		t.Fatal(err)
	}
	if !got.TurnRunning || got.Applies != "next_turn" || got.Model != "small" || got.Effort != "low" || got.PermissionMode != rpc.PermissionPlan {
		t.Errorf("configure answered %+v", got)
	}
	if tr := a.lastTurn(); tr.Model != "big" {
		t.Errorf("the running turn changed: %+v", tr)
	}
	ms.sink(runtimes.TurnCompleted{StopReason: "end_turn"})
	turn(t, e, w, ms, id, Configuration{})
	if tr := a.lastTurn(); tr.Model != "small" || tr.PermissionMode != rpc.PermissionPlan {
		t.Errorf("the next turn carries %+v, want small and plan", tr)
	}
	if st, _ := e.State(id); st.Model != "small" || st.Effort != "low" || st.PermissionMode != rpc.PermissionPlan {
		t.Errorf("state %+v", st)
	}

	// A send's own model and effort (an alias of big) apply from its turn.
	turn(t, e, w, ms, id, Configuration{Model: "big-2026", Effort: "high"})
	if tr := a.lastTurn(); tr.Model != "big-2026" || tr.Effort != "high" {
		t.Errorf("send with model and effort carried %+v", tr)
	}

	// A process started again (after a crash) starts with the configuration.
	ms.exit(1)
	w.await(t, "event/session_end")
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "back", SessionID: id}); err != nil {
		t.Fatal(err)
	}
	<-a.started
	if st := a.starts[len(a.starts)-1]; st.Model != "big-2026" || st.Effort != "high" || st.PermissionMode != rpc.PermissionPlan {
		t.Errorf("restart asked %+v", st)
	}
}

func TestConfigureRefusals(t *testing.T) {
	a := newTunable()
	e, wsID := newTunableEngine(t, a)
	w := newRecorder("c1")
	res, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID})
	if err != nil {
		t.Fatal(err)
	}
	<-a.started
	id := res.SessionID
	conf := func(p rpc.SessionConfigureParams) error {
		p.SessionID = id
		_, err := e.Configure(context.Background(), p)
		return err
	}
	for _, tc := range []struct {
		name string
		p    rpc.SessionConfigureParams
		want []string
	}{
		{"unknown model", rpc.SessionConfigureParams{Model: "huge"}, []string{"big", "small"}},
		{"effort the default model lacks", rpc.SessionConfigureParams{Effort: "max"}, []string{"low", "medium", "high"}},
		{"effort for a model without efforts", rpc.SessionConfigureParams{Model: "small", Effort: "low"}, []string{}},
		{"mode not switchable", rpc.SessionConfigureParams{PermissionMode: rpc.PermissionBypass}, nil},
		{"nothing asked", rpc.SessionConfigureParams{}, nil},
	} {
		err := conf(tc.p)
		if !isCode(err, rpc.CodeInvalidParams) {
			t.Errorf("%s: %v, want -32602", tc.name, err)
			continue
		}
		if tc.want != nil && !slices.Equal(supported(err), tc.want) {
			t.Errorf("%s: supported %v, want %v", tc.name, supported(err), tc.want)
		}
	}
	if st, _ := e.State(id); st.Model != "" || st.Effort != "" || st.PermissionMode != "" {
		t.Errorf("a refused configure changed the session: %+v", st)
	}
	if _, err := e.Configure(context.Background(), rpc.SessionConfigureParams{SessionID: "nope", Model: "big"}); !isCode(err, rpc.CodeSessionNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := e.Stop(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	if err := conf(rpc.SessionConfigureParams{Model: "big"}); !isCode(err, rpc.CodeSessionBusy) {
		t.Errorf("stopped session: %v, want -32011", err)
	}
	// A send's model is checked the same way, and a start's before any process.
	if _, err := e.Send(context.Background(), w, SendOptions{Prompt: "p", SessionID: id, Configuration: Configuration{Model: "huge"}}); !isCode(err, rpc.CodeInvalidParams) {
		t.Errorf("send with an unknown model: %v", err)
	}
	if _, err := e.Start(context.Background(), w, StartOptions{WorkspaceID: wsID, Model: "small", Effort: "high"}); !isCode(err, rpc.CodeInvalidParams) {
		t.Errorf("start with an effort the model lacks: %v", err)
	}
	select {
	case <-a.started:
		t.Error("a refused start started a process")
	default:
	}
}

// A runtime that cannot switch a running session says so.
func TestConfigureUnsupportedRuntime(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	w := newRecorder("c1")
	id, _ := start(t, e, a, w, wsID)
	_, err := e.Configure(context.Background(), rpc.SessionConfigureParams{SessionID: id, Model: "any"})
	if !isCode(err, rpc.CodeInvalidParams) {
		t.Errorf("configure on a runtime without it: %v", err)
	}
}
