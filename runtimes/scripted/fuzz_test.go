package scripted

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
)

// outputSeeds are one line of each type the fake CLI prints.
var outputSeeds = []string{
	`{"type":"init","session_id":"s1"}`,
	`{"type":"delta","message_id":"m1","phase":"text","text":"hel"}`,
	`{"type":"message","message":{"id":"m1","session_id":"s1","type":"assistant","uuid":"m1","timestamp":"2026-01-02T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}}`,
	`{"type":"permission","request_id":"r1","permission":{"tool":"Bash","target":"ls","kind":"bash"}}`,
	`{"type":"question","request_id":"r2","question":{"text":"which?","options":["a","b"]}}`,
	`{"type":"cancelled","request_id":"r1"}`,
	`{"type":"result","usage":{"input_tokens":1,"output_tokens":2},"stop_reason":"end_turn","duration_ms":5}`,
	`{"type":"error","code":"runtime_error","error":"boom"}`,
}

// FuzzOutputLines feeds the adapter's side of the wire lines from the fake
// CLI during a turn. Whatever they hold: no panic, every event encodes, a
// prompt is cancelled only while open, and none is left open when the turn
// ends.
func FuzzOutputLines(f *testing.F) {
	f.Add([]byte(joinLines(outputSeeds...)))
	for _, l := range outputSeeds {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var batch []runtimes.Event
		s := newSession("s1", func(ev runtimes.Event) { batch = append(batch, ev) }, Config{}, zap.NewNop())
		s.greeted = true
		s.em.Run()
		if err := s.turn.Begin(); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			s.onLine(line)
		}
		s.turn.Exit(0, "", "the fuzzed CLI is done")
		<-s.em.Done() // every event was delivered to batch
		open := map[string]bool{}
		for _, ev := range batch {
			if _, err := json.Marshal(ev); err != nil {
				t.Errorf("%T does not encode: %v", ev, err)
			}
			switch ev := ev.(type) {
			case runtimes.PromptRequested:
				if open[ev.RequestID] {
					t.Errorf("prompt %q requested twice while open", ev.RequestID)
				}
				open[ev.RequestID] = true
			case runtimes.PromptCancelled:
				if !open[ev.RequestID] {
					t.Errorf("prompt %q cancelled but not open", ev.RequestID)
				}
				delete(open, ev.RequestID)
			case runtimes.TurnCompleted, runtimes.TurnFailed:
				if len(open) > 0 {
					t.Errorf("turn ended with prompts open: %v", open)
				}
			}
		}
	})
}

// FuzzInputLines feeds the fake CLI's side of the wire: whatever stdin
// holds, every input it decodes encodes back to itself, and a prompt of any
// text is either a script or plain text, without a panic.
func FuzzInputLines(f *testing.F) {
	f.Add([]byte(joinLines(
		`{"type":"user","text":"hello"}`,
		`{"type":"answer","request_id":"r1","decision":"allow"}`,
		`{"type":"answer","request_id":"r2","text":"a"}`,
		`{"type":"interrupt"}`,
	)))
	f.Add([]byte(`{"type":"user","text":"{\"steps\":[{\"delta\":\"hi\"},{\"permission\":{\"tool\":\"Bash\",\"target\":\"ls\"}},{\"sleep_ms\":1}]}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := make(chan input)
		go readInput(bytes.NewReader(data), in)
		for m := range in {
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("input %+v does not encode: %v", m, err)
			}
			var back input
			if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, m) {
				t.Fatalf("input %+v came back as %+v (%v)", m, back, err)
			}
			if m.Type == inUser {
				_ = steps(m.Text)
			}
		}
	})
}

func joinLines(lines ...string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}
