package chats

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/internal/jsonl/jsonltest"
	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// schemaSeeds are lineSeeds, the lines of a few generated turns (tool
// calls with results, thoughts, tokens), the Gemini lines internal/jsonl's
// schema test read, and shapes the schemas must leave to encoding/json or
// read right.
func schemaSeeds(t testing.TB) [][]byte {
	out := lineSeeds(t)
	g := geminigen.New("s", "/w")
	lines := g.Header()
	for range 3 {
		lines = append(lines, g.Turn()...)
	}
	lines = append(lines,
		`{"id":"r","type":"gemini","toolCalls":[{"id":"c","args":{"a":[1]},"result":[{"text":"x"},{"functionResponse":{"id":"c","response":{"output":"o"}}}]}],"tokens":{"input":1}}`,
		`{"id":"r","content":"x","thoughts":[{"subject":"s"}],"toolCalls":[{"result":[{"text":null}]}]}`,
		`{"$set":{"lastUpdated":"t","messages":[{"id":"a","type":"user","content":[{"text":"x"}],"toolCalls":[{"id":"c"}],"thoughts":[{}]}]}}`,
		`{"sessionId":"s","projectHash":"p","startTime":"t"}`, `{"$set":{"messages":[null]}}`,
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
		`{"id":"a","type":"user","content":[{"functionResponse":null},{"functionResponse":{}},{"functionResponse":{"response":null}}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":{"output":"a\u00e9\ud83d\ude00"}}}]}`,
		`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","response":{"out\u0070ut":"o"}}}]}`,
		`{"id":"a\u0041","type":"user","content":"\u003c"}`,
		` {"id":"a","type":"user","content":""} `,
		`{"id":"a","type":"user","content":"x","émoji":1}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","args":{"a":tru}}]}`,
		`{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"c","args":{"a":"\x"}}],"junk":{"b":tru}}`,
	)
	for _, l := range lines {
		out = append(out, []byte(l))
	}
	return out
}

// inner is each object inside the seeds a schema of an inner value reads:
// the $set values, the records of their lists, the content parts (of
// records and of tool results) and the function responses.
func inner(seeds [][]byte) [][]byte {
	var out [][]byte
	elems := func(list []byte) []json.RawMessage {
		var l []json.RawMessage
		_ = json.Unmarshal(list, &l)
		return l
	}
	addParts := func(list []byte) {
		for _, p := range elems(list) {
			out = append(out, p)
			var fr struct {
				FunctionResponse struct {
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			}
			if json.Unmarshal(p, &fr) == nil && fr.FunctionResponse.Response != nil {
				out = append(out, fr.FunctionResponse.Response)
			}
		}
	}
	for _, b := range seeds {
		var l struct {
			Set       json.RawMessage `json:"$set"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Result json.RawMessage `json:"result"`
			} `json:"toolCalls"`
		}
		if json.Unmarshal(b, &l) != nil {
			continue
		}
		addParts(l.Content)
		for _, c := range l.ToolCalls {
			addParts(c.Result)
		}
		if l.Set != nil {
			out = append(out, l.Set)
			var s struct {
				Messages json.RawMessage `json:"messages"`
			}
			_ = json.Unmarshal(l.Set, &s)
			for _, r := range elems(s.Messages) {
				out = append(out, r)
			}
		}
	}
	return out
}

// schemaCase is a schema held to encoding/json: check reports whether it
// read b, and read something (any object is read by a schema of none of
// its keys, as an empty value).
type schemaCase struct {
	label string
	took  int // the seeds it must read at least: none would prove nothing
	check func(t testing.TB, b []byte) bool
}

func caseOf[T any](label string, s *jsonl.Schema[T], took int) schemaCase {
	c := jsonltest.Case[T]{Label: label, Schema: s}
	return schemaCase{label, took, func(t testing.TB, b []byte) bool {
		var v T
		return c.Check(t, b) && s.Read(b, &v) && !reflect.ValueOf(v).IsZero()
	}}
}

// schemaCases are this package's schemas; those of the values inside
// (thoughts, tokens, tool calls, function responses, call ids) are held
// with the schemas that read them.
var schemaCases = []schemaCase{
	caseOf("line", lineSchema, 100),
	caseOf("record head", headSchema, 60),
	caseOf("set", setSchema, 20),
	caseOf("record", recordSchema, 50),
	caseOf("part", partSchema, 25),
	caseOf("response", responseSchema, 8),
}

// TestSchemas: each schema reads its seeds (the lines, and the objects
// inside them) as encoding/json decodes them, and reads enough of them.
func TestSchemas(t *testing.T) {
	seeds := schemaSeeds(t)
	seeds = append(seeds, inner(seeds)...)
	for _, c := range schemaCases {
		took := 0
		for _, b := range seeds {
			if c.check(t, b) {
				took++
			}
		}
		t.Logf("%s: read %d of %d seeds", c.label, took, len(seeds))
		if took < c.took {
			t.Errorf("%s read only %d seeds, want %d at least", c.label, took, c.took)
		}
	}
}

// FuzzSchemas holds each schema to encoding/json: whatever object one
// reads, if it is valid JSON, encoding/json decodes into the same value,
// without an error. Taken or not, a record's message must encode: a page
// is one reply.
func FuzzSchemas(f *testing.F) {
	seeds := schemaSeeds(f)
	for _, b := range append(seeds, inner(seeds)...) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range schemaCases {
			c.check(t, b)
		}
		if m, ok := ToMessage("s", b, func(string) bool { return false }, ""); ok {
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("%s: message does not encode: %v", b, err)
			}
		}
	})
}
