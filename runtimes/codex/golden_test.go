package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// Golden files: testdata/appserver/<name>.jsonl are app-server stdout lines
// captured from the real CLI by the live tests (go test -run TestLive
// -update rewrites them); TestAppServerGolden replays each through a
// session's handlers and compares the events with <name>.golden.json
// (-update rewrites those too).

const (
	goldenDir    = "testdata/appserver"
	wsMark       = "/home/user/project"
	homeMark     = "/home/user"
	threadMark   = "01a20000-0000-7000-8000-0000000000aa"
	goldenThread = threadMark
)

// capture records the app-server lines of l's sessions; with -update they
// are written to testdata/appserver/<name>.jsonl when the test ends, its
// temporary paths and the thread id replaced by placeholders.
type capture struct {
	mu     sync.Mutex
	lines  [][]byte
	thread string
}

func captureLines(t *testing.T, l *liveEnv, name string) *capture {
	c := &capture{}
	l.a.tap = func(line []byte) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.lines = append(c.lines, append([]byte(nil), line...))
	}
	t.Cleanup(func() {
		if !*update || t.Failed() {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		b := bytes.Join(c.lines, []byte("\n"))
		b = bytes.ReplaceAll(b, []byte(l.ws), []byte(wsMark))
		b = bytes.ReplaceAll(b, []byte(codextestHome(l)), []byte(homeMark))
		if c.thread != "" {
			b = bytes.ReplaceAll(b, []byte(c.thread), []byte(threadMark))
		}
		if bytes.Contains(b, []byte(os.TempDir()+"/")) {
			t.Errorf("a temporary path is left in the capture")
		}
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(goldenDir, name+".jsonl"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	return c
}

func (c *capture) setThread(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.thread = id
}

func codextestHome(l *liveEnv) string { return kit.LookupEnv(l.env, "HOME") }

// replay feeds captured lines to a session without a process, as the peer
// would: requests to onRequest, notifications to onNotification, replies to
// nobody. Each prompt counts as answered when Codex says it is resolved (the
// capture holds Codex's side only), and turn/started begins a turn, as
// Send would have.
func replay(t *testing.T, lines []byte) []runtimes.Event {
	evs := newEvents()
	em := kit.NewEmitter(evs.add, nil)
	s := &session{id: goldenThread, log: zap.NewNop(), em: em, turn: kit.NewTurn(em, nil),
		items: map[string]json.RawMessage{}, ended: map[string]bool{}, turnKnown: make(chan struct{})}
	em.Run()
	for _, line := range bytes.Split(lines, []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &m) != nil || m.Method == "" {
			continue
		}
		switch {
		case m.ID != nil:
			s.onRequest(&stdiorpc.Request{ID: m.ID, Method: m.Method, Params: m.Params})
		case m.Method == "turn/started":
			if !s.turn.Busy() {
				s.mu.Lock()
				s.turnID, s.turnKnown = "", make(chan struct{})
				s.mu.Unlock()
				if err := s.turn.Begin(); err != nil {
					t.Fatal(err)
				}
			}
			s.onNotification(m.Method, m.Params)
		case m.Method == "serverRequest/resolved":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(m.Params, &p)
			id := requestID(p.RequestID)
			if _, err := s.turn.Claim(id); err == nil {
				s.turn.Answered(id)
			}
			s.onNotification(m.Method, m.Params)
		default:
			s.onNotification(m.Method, m.Params)
		}
	}
	s.turn.Exit(0, "replay over", "")
	<-em.Done()
	return evs.all()
}

func TestAppServerGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures in %s (%v): run go test -run TestLive -update", goldenDir, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out []map[string]any
			for _, ev := range replay(t, in) {
				if m, ok := ev.(runtimes.MessageCompleted); ok {
					m.Message.Timestamp = "(time)" // the live clock
					ev = m
				}
				out = append(out, map[string]any{"type": fmt.Sprintf("%T", ev), "event": ev})
			}
			got, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(goldenDir, name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("%s differs from %s; run with -update and review the diff:\n%s", f, golden, got)
			}
		})
	}
}
