package rollout

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// quickSeeds are the lines of the testdata rollouts and shapes quickLine
// must leave to encoding/json or get right.
func quickSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, name := range []string{"exec.jsonl", "synthetic.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Split(b, []byte("\n"))...)
	}
	for _, l := range []string{
		`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c","command":["ls","-l"],"status":"completed","aggregated_output":"a\nb","exit_code":0}}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"f","changes":[{"path":"a","kind":{"type":"update","move_path":"b"},"diff":"@@"}],"status":"completed"}}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"hi"}]}}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"x"}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"content":"x"}}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"a":tru}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","exit_code":1.5}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","exit_code":null}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","command":"ls"}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":null}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"x","Type":"y"}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed"},"payload":{"id":"p"}}`,
		`{"type":"response_item","payload":{"type":"reasoning","summary":[{"text":5}]}}`,
		`{"type":"response_item","payload":{"type":"reasoning","summary":[]}}`,
		`{"type":"response_item","payload":{"type":"message","content":[{"type":"output_text","text":"\u00e9\n"}]}}`,
		` {"type":"x","payload":{}} `,
		`{"type":"x","payload":{}} x`,
	} {
		out = append(out, []byte(l))
	}
	return out
}

// checkQuickLine fails t unless quickLine, where it takes a valid JSON
// line, decodes what ParseLine decodes, without an error.
func checkQuickLine(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := quickLine(b)
	if !ok {
		if !reflect.DeepEqual(got, Line{}) {
			t.Fatalf("%s: refused, yet decoded %#v", b, got)
		}
		return false
	}
	if !json.Valid(b) {
		// Not compared: what quickLine skips is not validated. Its message
		// must encode, a page being one reply.
		if m, ok := ToMessage(threadA, 7, got); ok {
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("%s: message does not encode: %v", b, err)
			}
		}
		return true
	}
	var want Line
	if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nquick %#v\nwant  %#v (%v)", b, got, want, err)
	}
	return true
}

// TestQuickLineEqualsDecoder: a page's lines decoded by quickLine are what
// ParseLine decodes, and quickLine takes Codex's own lines.
func TestQuickLineEqualsDecoder(t *testing.T) {
	taken := 0
	for _, b := range quickSeeds(t) {
		if checkQuickLine(t, b) {
			taken++
		}
	}
	t.Logf("quickLine took %d lines", taken)
	if taken < 30 { // the test would prove nothing if all fell back
		t.Fatalf("quickLine took only %d lines", taken)
	}
}

func FuzzQuickLine(f *testing.F) {
	for _, b := range quickSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkQuickLine(t, b) })
}
