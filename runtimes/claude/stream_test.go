package claude

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/stream")

// recorder stands in for the CLI process: it records what the session
// writes to stdin and does with the stall timer, in order with its events.
type recorder struct{ log *[]entry }

// entry is one step of a golden transcript: an event, a stdin line, or a
// stall timer change.
type entry struct {
	Event string          `json:"event,omitempty"`
	Data  any             `json:"data,omitempty"`
	Stdin json.RawMessage `json:"stdin,omitempty"`
	Stall string          `json:"stall,omitempty"`
}

func (r recorder) Write(line []byte) error {
	*r.log = append(*r.log, entry{Stdin: bytes.TrimSuffix(append([]byte(nil), line...), []byte("\n"))})
	return nil
}
func (r recorder) ArmStall()    { *r.log = append(*r.log, entry{Stall: "armed"}) }
func (r recorder) DisarmStall() { *r.log = append(*r.log, entry{Stall: "disarmed"}) }

// TestStreamGolden feeds each testdata/stream/*.jsonl file, line by line,
// to a session and compares what it did with <name>.golden.json. Most files
// are captured from the real CLI against the fake API. Lines starting with
// '#' are the user's actions at that point: "#send TEXT", "#respond DECISION"
// or "#answer TEXT" (to the latest prompt), "#interrupt".
func TestStreamGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "stream", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(name, func(t *testing.T) {
			got := replay(t, file)
			golden := strings.TrimSuffix(file, ".jsonl") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s (run go test -update and review the diff):\n%s", name, golden, got)
			}
		})
	}
}

// newTestSession is a session whose events reach sink inline, in the order
// of the session's other effects (see kit.NewInlineEmitter).
func newTestSession(id string, sink runtimes.Sink, log *zap.Logger) *session {
	s := newSession(id, sink, log)
	s.em = kit.NewInlineEmitter(sink, log)
	s.turn = kit.NewTurn(s.em, nil)
	return s
}

func replay(t *testing.T, file string) []byte {
	var log []entry
	s := newTestSession("golden-session", func(ev runtimes.Event) {
		if m, ok := ev.(runtimes.MessageCompleted); ok {
			// Stdout lines of assistant messages carry no time: the
			// conversion stamps the current one.
			if _, err := time.Parse(time.RFC3339Nano, m.Message.Timestamp); err != nil {
				t.Errorf("message %s has timestamp %q", m.Message.ID, m.Message.Timestamp)
			}
			m.Message.Timestamp = "(set)"
			ev = m
		}
		log = append(log, entry{Event: strings.TrimPrefix(fmt.Sprintf("%T", ev), "runtimes."), Data: ev})
	}, zaptest.NewLogger(t))
	s.attach(nil, recorder{&log})
	s.em.Run()

	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	lastPrompt := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		action, arg, _ := strings.Cut(line, " ")
		switch action {
		case "#send":
			if err := s.Send(ctx, runtimes.Turn{Prompt: arg}); err != nil {
				t.Fatalf("send: %v", err)
			}
		case "#respond":
			if err := s.Respond(ctx, lastPrompt, runtimes.Answer{Decision: runtimes.Decision(arg)}); err != nil {
				t.Fatalf("respond %q to %s: %v", arg, lastPrompt, err)
			}
		case "#answer":
			if err := s.Respond(ctx, lastPrompt, runtimes.Answer{Text: arg}); err != nil {
				t.Fatalf("answer %q to %s: %v", arg, lastPrompt, err)
			}
		case "#interrupt":
			if err := s.Interrupt(ctx); err != nil {
				t.Fatalf("interrupt: %v", err)
			}
		default:
			s.handleLine([]byte(line))
			s.replies.Wait()
		}
		for i := len(log) - 1; i >= 0; i-- {
			if p, ok := log[i].Data.(runtimes.PromptRequested); ok {
				lastPrompt = p.RequestID
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
