package gemini

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply answers the tests' prompts: "RUN <cmd>" asks for a shell command
// (then "done" once it ran or was refused), "SLOW" streams slowly; anything
// else is echoed.
func reply(r fakegemini.Request) fakegemini.Reply {
	if resp, ok := r.FunctionResponse(); ok {
		if strings.Contains(string(resp.Response), "error") {
			return fakegemini.Text("refused")
		}
		return fakegemini.Text("done")
	}
	text := r.LastUserText()
	if cmd, ok := strings.CutPrefix(text, "RUN "); ok {
		return fakegemini.Shell(cmd)
	}
	if text == "SLOW" {
		return fakegemini.Slow("one two three four five six seven eight nine ten", 200*time.Millisecond)
	}
	return fakegemini.Echo(r)
}

// env is one test's real Gemini CLI against its fake API, in a workspace.
type env struct {
	api *fakegemini.Server
	a   *Adapter
	dir string
	cli []string // the CLI's environment
}

func newEnv(t *testing.T, extra ...string) *env {
	t.Helper()
	api := fakegemini.New(t)
	api.Respond(reply)
	cli := append(geminitest.Env(t, api.URL()), extra...)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{Bin: geminitest.Bin(t), Env: cli, KillGrace: 5 * time.Second, Logger: zaptest.NewLogger(t)})
	return &env{api: api, a: a, dir: dir, cli: cli}
}

// recorder collects a session's events.
type recorder struct{ ch chan runtimes.Event }

func (r *recorder) sink(ev runtimes.Event) { r.ch <- ev }

func (r *recorder) until(t *testing.T, match func(runtimes.Event) bool) []runtimes.Event {
	t.Helper()
	var evs []runtimes.Event
	timeout := time.After(geminitest.Timeout)
	for {
		select {
		case ev := <-r.ch:
			evs = append(evs, ev)
			if match(ev) {
				return evs
			}
		case <-timeout:
			t.Fatalf("event not seen; got %#v", evs)
			return nil
		}
	}
}

func isTurnEnd(ev runtimes.Event) bool {
	switch ev.(type) {
	case runtimes.TurnCompleted, runtimes.TurnFailed:
		return true
	}
	return false
}

func isPromptEvent(ev runtimes.Event) bool { _, ok := ev.(runtimes.PromptRequested); return ok }

func (e *env) start(t *testing.T, req runtimes.StartRequest) (runtimes.Session, *recorder) {
	t.Helper()
	req.Dir = e.dir
	rec := &recorder{ch: make(chan runtimes.Event, 10000)}
	s, err := e.a.Start(geminitest.Context(t), req, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s, rec
}

func text(evs []runtimes.Event) string {
	var s string
	for _, ev := range evs {
		if d, ok := ev.(runtimes.MessageDelta); ok && d.Phase == rpc.PhaseText {
			s += d.Text
		}
	}
	return s
}

func completed(evs []runtimes.Event) []rpc.Message {
	var ms []rpc.Message
	for _, ev := range evs {
		if m, ok := ev.(runtimes.MessageCompleted); ok {
			ms = append(ms, m.Message)
		}
	}
	return ms
}

// stored is the session's stored messages, oldest first.
func (e *env) stored(t *testing.T, id string) []rpc.Message {
	t.Helper()
	msgs, _, err := e.a.Transcripts().Messages(context.Background(), e.dir, id, 0, 500, false)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}
