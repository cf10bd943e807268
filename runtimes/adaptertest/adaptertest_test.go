package adaptertest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// The suite is tested on the scripted adapter, whole and with one rule of
// the contract broken at a time (a mutant): each mutant must fail the
// check of its rule. A mutant runs in a child test process, since a
// failing suite fails the test that runs it.

func TestMain(m *testing.M) {
	if scripted.IsCLI() {
		scripted.Main()
		return
	}
	goleak.VerifyTestMain(m)
}

// mutantEnv names the mutant a child test process runs.
const mutantEnv = "ADAPTERTEST_MUTANT"

// TestConformingAdapterPasses is the control: the wrapper that makes the
// mutants changes nothing when no rule is broken.
func TestConformingAdapterPasses(t *testing.T) {
	adaptertest.Run(t, harness(""))
}

func TestSuiteCatchesBrokenAdapters(t *testing.T) {
	tests := []struct {
		mutant, check, want string
	}{
		{"client-ids", "NewSessionID", "Info.ClientIDs is false, but Start accepted the client's id"},
		{"no-session-error", "ResumeUnknown", "want an error wrapping ErrNoSession"},
		{"busy-accepted", "Busy", "Send during a turn: <nil>, want ErrBusy"},
		{"respond-unknown-accepted", "Turns", "Respond to an unknown id: <nil>, want ErrNoRequest"},
		{"idle-after-terminal", "Turns", "the terminal event does not follow ActivityChanged idle"},
		// The duplicate is seen between the turns, or, when the next turn
		// was sent before it was recorded (under load), as that turn's
		// first event: either way the suite names it.
		{"double-terminal", "Turns", "events after a turn's terminal event, outside any turn: [completed(end_turn)]|the turn begins with completed(end_turn)"},
		{"event-after-exit", "Turns/AfterExit", "ProcessExited is not the last event"},
		{"close-returns-early", "Turns/AfterExit", "Done is open after Close returned"},
		{"watch-silent", "Turns/Watch", "Watch never reported session"},
		{"messages-other-ids", "Turns/Messages", "the stored messages (err <nil>) never matched the live ones"},
		{"trash-keeps", "Turns/Trash", "Has is still true after Trash"},
	}
	for _, tc := range tests {
		t.Run(tc.mutant, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			run := "^TestMutant$/^" + strings.ReplaceAll(tc.check, "/", "$/^") + "$"
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+run, "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), mutantEnv+"="+tc.mutant, "GORACE=atexit_sleep_ms=0")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			caught := slices.ContainsFunc(strings.Split(tc.want, "|"), func(w string) bool { return strings.Contains(string(out), w) })
			if !errors.As(err, &exit) || !caught {
				t.Errorf("the suite did not fail %s with %q (%v):\n%s", tc.check, tc.want, err, out)
			}
		})
	}
}

// TestMutant runs the suite on the mutant the parent test names.
func TestMutant(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("run by TestSuiteCatchesBrokenAdapters")
	}
	h := harness(name)
	h.Timeout = 5 * time.Second // waits that a mutant makes fail
	adaptertest.Run(t, h)
}

func harness(mutant string) adaptertest.Harness {
	return adaptertest.Harness{
		New: func(t *testing.T) adaptertest.Env {
			mark := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
			t.Setenv("ADAPTERTEST_MARK", mark)
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			a := scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()})
			return adaptertest.Env{Adapter: &adapter{Adapter: a, mutant: mutant}, Dir: dir, Mark: "ADAPTERTEST_MARK=" + mark}
		},
		Text:       "hello",
		Slow:       `{"steps":[{"delta":"one "},{"sleep_ms":5000},{"message":"one"}]}`,
		Permission: `{"steps":[{"permission":{"tool":"Bash","target":"touch x","kind":"bash_command"}}]}`,
		Question:   `{"steps":[{"question":{"text":"Pick one","options":["red","blue"]}}]}`,
	}
}

// adapter is the scripted adapter with the rule mutant names broken.
type adapter struct {
	runtimes.Adapter
	mutant string
}

func (a *adapter) Info() runtimes.Info {
	info := a.Adapter.Info()
	if a.mutant == "client-ids" {
		info.ClientIDs = false
	}
	return info
}

func (a *adapter) Start(ctx context.Context, req runtimes.StartRequest, sink runtimes.Sink) (runtimes.Session, error) {
	m := &mutantSink{mutant: a.mutant, sink: sink}
	s, err := a.Adapter.Start(ctx, req, m.deliver)
	if err != nil {
		if a.mutant == "no-session-error" {
			err = errors.New(err.Error())
		}
		return nil, err
	}
	return &session{Session: s, mutant: a.mutant}, nil
}

func (a *adapter) Transcripts() runtimes.Transcripts {
	return &transcripts{Transcripts: a.Adapter.Transcripts(), mutant: a.mutant}
}

// mutantSink reorders, repeats or adds events.
type mutantSink struct {
	mutant string
	sink   runtimes.Sink

	mu   sync.Mutex
	idle *runtimes.ActivityChanged // held back until the terminal event
}

func (m *mutantSink) deliver(ev runtimes.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch ev := ev.(type) {
	case runtimes.ActivityChanged:
		if m.mutant == "idle-after-terminal" && ev.Activity == rpc.ActivityIdle {
			m.idle = &ev
			return
		}
	case runtimes.TurnCompleted, runtimes.TurnFailed:
		switch m.mutant {
		case "double-terminal":
			m.sink(ev)
		case "idle-after-terminal":
			m.sink(ev)
			if m.idle != nil {
				m.sink(*m.idle)
				m.idle = nil
			}
			return
		}
	case runtimes.ProcessExited:
		if m.mutant == "event-after-exit" {
			m.sink(ev)
			m.sink(runtimes.ActivityChanged{Activity: rpc.ActivityIdle})
			return
		}
	}
	m.sink(ev)
}

type session struct {
	runtimes.Session
	mutant string
	closes sync.Once
}

func (s *session) Send(ctx context.Context, turn runtimes.Turn) error {
	err := s.Session.Send(ctx, turn)
	if s.mutant == "busy-accepted" && errors.Is(err, runtimes.ErrBusy) {
		return nil
	}
	return err
}

func (s *session) Respond(ctx context.Context, id string, a runtimes.Answer) error {
	err := s.Session.Respond(ctx, id, a)
	if s.mutant == "respond-unknown-accepted" && errors.Is(err, runtimes.ErrNoRequest) {
		return nil
	}
	return err
}

// Close returns at once the first time, leaving the process running (a
// later Close, the suite's cleanup, ends it).
func (s *session) Close(ctx context.Context) error {
	early := false
	if s.mutant == "close-returns-early" {
		s.closes.Do(func() { early = true })
	}
	if early {
		return nil
	}
	return s.Session.Close(ctx)
}

type transcripts struct {
	runtimes.Transcripts
	mutant string
}

func (tr *transcripts) Messages(ctx context.Context, dir, id string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	msgs, total, err := tr.Transcripts.Messages(ctx, dir, id, offset, limit, desc)
	if tr.mutant == "messages-other-ids" {
		for i := range msgs {
			msgs[i].ID += "-stored"
		}
	}
	return msgs, total, err
}

func (tr *transcripts) Trash(ctx context.Context, dir, id string, bin runtimes.Bin) error {
	if tr.mutant == "trash-keeps" {
		return nil
	}
	return tr.Transcripts.Trash(ctx, dir, id, bin)
}

func (tr *transcripts) Watch(dir string, changed func(string)) (io.Closer, error) {
	if tr.mutant == "watch-silent" {
		changed = func(string) {}
	}
	return tr.Transcripts.Watch(dir, changed)
}
