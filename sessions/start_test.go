package sessions

// session/start: starting again after a stop, one process per id while
// starting, a failed start, ids the runtime chooses, a directory gone.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

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

// A session whose runtime chose its id logs that id once, under
// "session", not an empty one beside it.
func TestChosenIDLoggedOnce(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	a := newMem()
	a.choosesIDs = true
	e, wsID := newEngine(t, a, func(c *Config) { c.Logger = zap.New(core) })
	res, err := e.Start(context.Background(), newRecorder("c1"), StartOptions{WorkspaceID: wsID})
	if err != nil {
		t.Fatal(err)
	}
	ms := <-a.started
	ms.sink(runtimes.TurnFailed{Code: "x", Message: "outside a turn"}) // logged by the session
	entries := logs.FilterMessage("runtime error outside a turn").All()
	if len(entries) != 1 {
		t.Fatalf("logged %d times", len(entries))
	}
	var ids []string
	for _, f := range entries[0].Context {
		if f.Key == "session" {
			ids = append(ids, f.String)
		}
	}
	if len(ids) != 1 || ids[0] != res.SessionID {
		t.Errorf("the line carries session %q, want only %q", ids, res.SessionID)
	}
}
