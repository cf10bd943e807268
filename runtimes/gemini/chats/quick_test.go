package chats

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// quickSeeds are lineSeeds, the lines of a few generated turns (tool
// calls with results, thoughts, tokens) and shapes the quick decoders must
// leave to encoding/json or get right.
func quickSeeds(t testing.TB) [][]byte {
	out := lineSeeds(t)
	g := geminigen.New("s", "/w")
	for range 3 {
		for _, l := range g.Turn() {
			out = append(out, []byte(l))
		}
	}
	for _, l := range []string{
		`{"id":"a","type":"gemini","content":"x","tokens":{"input":1,"output":2,"cached":3,"total":6}}`,
		`{"id":"a","type":"gemini","content":"x","tokens":{"input":1.5}}`,
		`{"id":"a","type":"gemini","content":"x","tokens":{"input":1e3}}`,
		`{"id":"a","type":"gemini","content":"x","tokens":{"input":99999999999999999999}}`,
		`{"id":"a","type":"gemini","content":"x","tokens":{"input":-0,"Output":1}}`,
		`{"id":"a","type":"gemini","content":"x","tokens":null}`,
		`{"id":"a","type":"gemini","content":"x","tokens":[]}`,
		`{"id":"a","type":"gemini","content":"x","thoughts":[{"subject":"s","description":"d","at":1}]}`,
		`{"id":"a","type":"gemini","content":"x","thoughts":[{"subject":"s","subject":"t"}]}`,
		`{"id":"a","type":"gemini","content":"x","thoughts":[null]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","name":"n","args":{"p":"\"}"},"result":[{"functionResponse":{"id":"c","name":"n","response":{"output":"o\n"}}}],"status":"success","resultDisplay":"o"}]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","args":null}]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","args":[1],"result":[]}]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","result":[{"text":"t","thought":true}]}]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","result":[{"thought":tru}]}]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","Status":"error"}]}`,
		`{"id":"a","type":"gemini","content":[{"text":"a"},{"text":"b","thought":false}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":{"error":"e","output":"o"}}}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":{"output":null}}}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":{"output":7}}}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":"plain"}}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":{"output":"a\u00e9\ud83d\ude00"}}}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":{"out\u0070ut":"o"}}}]}`,
		`{"id":"a\u0041","type":"user","content":"\u003c"}`,
		` {"id":"a","type":"user","content":""} `,
		`{"id":"a","type":"user","content":"x","émoji":1}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","args":{"a":tru}}]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","args":{"a":"\x"}}],"junk":{"b":tru}}`,
	} {
		out = append(out, []byte(l))
	}
	return out
}

// checkQuick fails t unless each quick decoder, where it takes b or a
// part of it, reads what encoding/json reads, without an error. Lines that
// are not valid JSON are not compared: the quick decoders do not validate
// what they skip.
func checkQuick(t *testing.T, b []byte) (took bool) {
	t.Helper()
	if !json.Valid(b) {
		// Taken or not, its message must encode: a page is one reply.
		if m, ok := ToMessage("s", b, func(string) bool { return false }, ""); ok {
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("%s: message does not encode: %v", b, err)
			}
		}
		return false
	}
	got, ok := quickRecord(b)
	if ok {
		var want record
		if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\nquick %#v\nwant  %#v (%v)", b, got, want, err)
		}
	} else if got.ID != "" || got.Content != nil || got.ToolCalls != nil {
		t.Fatalf("%s: refused, yet quickRecord returned %#v", b, got)
	}
	var want record
	_ = json.Unmarshal(b, &want)
	checkQuickParts(t, want.Content)
	for _, c := range want.ToolCalls {
		for _, p := range c.Result {
			if p.FunctionResponse != nil {
				checkQuickResponse(t, p.FunctionResponse.Response)
			}
		}
	}
	for _, p := range want.userParts() {
		if p.FunctionResponse != nil {
			checkQuickResponse(t, p.FunctionResponse.Response)
		}
	}
	return ok
}

func checkQuickParts(t *testing.T, c []byte) {
	t.Helper()
	got, ok := quickParts(c)
	if !ok {
		return
	}
	var want []part
	if err := json.Unmarshal(c, &want); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nquick %#v\nwant  %#v (%v)", c, got, want, err)
	}
}

func checkQuickResponse(t *testing.T, b []byte) {
	t.Helper()
	got, ok := quickResponse(b)
	if !ok {
		if got != (response{}) {
			t.Fatalf("%s: refused, yet quickResponse returned %#v", b, got)
		}
		return
	}
	var want response
	if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nquick %#v\nwant  %#v (%v)", b, got, want, err)
	}
}

// TestQuickEqualsDecoder: a page's records read by the quick decoders are
// those encoding/json reads, and the quick path takes Gemini's own lines.
func TestQuickEqualsDecoder(t *testing.T) {
	taken := 0
	for _, b := range quickSeeds(t) {
		if checkQuick(t, b) {
			taken++
		}
	}
	t.Logf("quick path took %d records", taken)
	if taken < 30 { // the test would prove nothing if all fell back
		t.Fatalf("quick path took only %d records", taken)
	}
}

func FuzzQuickRecord(f *testing.F) {
	for _, b := range quickSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkQuick(t, b) })
}
