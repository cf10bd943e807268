package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// quickSeeds are the lines of testdata/lines, classifyCases, and shapes
// quickLine must leave to encoding/json or get right.
func quickSeeds(t testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "lines", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	var out [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Split(b, []byte("\n"))...)
	}
	for _, c := range classifyCases {
		out = append(out, []byte(c.line))
	}
	for _, l := range []string{
		`{"type":"assistant","uuid":"u","timestamp":"2026-11-23T00:00:00.000Z","message":{"id":"m","role":"assistant","model":"claude","content":[{"type":"text","text":"a\nb"},{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":4,"cache_creation_input_tokens":5,"cache_read_input_tokens":6,"cache_creation":{"ephemeral_5m_input_tokens":0},"service_tier":"standard"},"stop_reason":null}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out","is_error":false}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"}],"is_error":true}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}`,
		`{"type":"user","message":{"role":"user","content":"typed"}}`,
		`{"type":"user","message":{"content":[{"type":"tool_use","input":{"a":tru}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":{"a":"\x"}}]},"junk":{"a":tru}}`,
		`{"type":"user","message":{"content":[{"type":"text","Text":"T"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a","text":"b"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","is_error":"yes"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","input":null}]}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":1.5}}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":-1,"Output_tokens":2}}}`,
		`{"type":"assistant","message":{"usage":null}}`,
		`{"type":"assistant","message":{"content":[5]}}`,
		`{"type":"assistant","message":{"content":[]},"isMeta":false,"isSidechain":false}`,
		`{"type":"assistant","message":{"content":[]},"isMeta":1}`,
		`{"type":"assistant","message":{"id":"\ud83d\ude00"}}`,
		` {"type":"assistant","message":{}} `,
	} {
		out = append(out, []byte(l))
	}
	return out
}

// checkQuickLine fails t unless quickLine, where it takes a valid JSON
// line, decodes what encoding/json decodes, without an error.
func checkQuickLine(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := quickLine(b)
	if !ok {
		if !reflect.DeepEqual(got, decodedLine{}) {
			t.Fatalf("%s: refused, yet decoded %#v", b, got)
		}
		return false
	}
	if !json.Valid(b) {
		return true // not compared: what quickLine skips is not validated
	}
	var want decodedLine
	if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Fatalf("%s:\nquick %s\nwant  %s (%v)", b, gj, wj, err)
	}
	return true
}

// TestQuickLineEqualsDecoder: a page's lines decoded by quickLine are what
// encoding/json decodes, and quickLine takes Claude Code's own lines.
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
