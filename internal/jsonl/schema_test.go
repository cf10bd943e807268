package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/cdevd/cdevd/testdoubles/claudegen"
	"github.com/cdevd/cdevd/testdoubles/codexgen"
	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// schemaCase is a schema held to encoding/json decoding into its T.
type schemaCase interface {
	// check fails t unless the schema, where it reads a valid JSON line,
	// reads what encoding/json does; it reports whether it read b.
	check(t *testing.T, b []byte) bool
	name() string
}

type schemaOf[T any] struct {
	label string
	s     *Schema[T]
	// lenient: the schema forgives values of another type, as a decoding
	// that ignores encoding/json's type errors does.
	lenient bool
}

func (c schemaOf[T]) name() string { return c.label }

func (c schemaOf[T]) check(t *testing.T, b []byte) bool {
	t.Helper()
	var got, zero T
	ok := c.s.Read(b, &got)
	// A scan's reading, its keys remembered by their place (b's own, the
	// second time), reads what a reading afresh does.
	sh := new(Shape)
	for range 2 {
		var shaped T
		if sok := c.s.ReadShaped(sh, b, &shaped); sok != ok || !reflect.DeepEqual(shaped, got) {
			t.Fatalf("%s: %s: read with its shape remembered %v %#v; afresh %v %#v", c.label, b, sok, shaped, ok, got)
		}
	}
	if !ok {
		if !reflect.DeepEqual(got, zero) {
			t.Fatalf("%s: %s: refused, yet read %#v", c.label, b, got)
		}
		return false
	}
	if !json.Valid(b) {
		return true // not compared: what a schema skips is not validated
	}
	var want T
	err := json.Unmarshal(b, &want)
	var te *json.UnmarshalTypeError
	if c.lenient && errors.As(err, &te) {
		err = nil
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Fatalf("%s: %s:\nschema %s\njson   %s (%v)", c.label, b, gj, wj, err)
	}
	return true
}

// schemaCases are every format's schemas, with how many of the seeds each
// must take at least: a schema that took none would prove nothing.
var schemaCases = []struct {
	c    schemaCase
	took int
}{
	{schemaOf[claudeLine]{label: "claude line", s: claudeLineSchema}, 20},
	{schemaOf[claudeFacts]{label: "claude facts", s: claudeFactsSchema, lenient: true}, 40},
	{schemaOf[codexLine]{label: "codex line", s: codexLineSchema}, 20},
	{schemaOf[codexFacts]{label: "codex facts", s: codexFactsSchema, lenient: true}, 30},
	{schemaOf[geminiRecord]{label: "gemini record", s: geminiRecordSchema}, 10},
	{schemaOf[geminiLine]{label: "gemini line", s: geminiLineSchema}, 20},
}

// schemaSeeds are the lines the readers' tests read (transcripts, rollouts
// and chat files the real CLIs wrote), the generators' lines, and shapes
// where a schema must refuse or read right.
func schemaSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, glob := range []string{
		"../../runtimes/claude/transcript/testdata/lines/*.jsonl",
		"../../runtimes/codex/rollout/testdata/*.jsonl",
		"../../runtimes/gemini/chats/testdata/*.jsonl",
	} {
		files, err := filepath.Glob(glob)
		if err != nil || len(files) == 0 {
			t.Fatalf("no seeds in %s: %v", glob, err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, bytes.Split(b, []byte("\n"))...)
		}
	}
	cg := claudegen.New("00000000-0000-4000-8000-000000000001", "/home/user/p")
	xg := codexgen.New("00000000-0000-4000-8000-000000000002", "/home/user/p")
	gg := geminigen.New("00000000-0000-4000-8000-000000000003", "/home/user/p")
	lines := append(xg.Header(), gg.Header()...)
	for range 3 {
		lines = append(lines, cg.Message(), cg.Noise())
		lines = append(lines, xg.Turn()...)
		lines = append(lines, gg.Turn()...)
	}
	for _, l := range lines {
		seeds = append(seeds, []byte(l))
	}
	for _, l := range []string{
		`{"type":"user","message":{"content":[{"type":"text","Text":"T"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a","text":"b"}]}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":1.5}}}`,
		`{"type":"assistant","message":{"usage":null}}`,
		`{"type":"assistant","message":{"id":"\ud83d\ude00"}}`,
		`{"type":5,"isMeta":"true","message":null,"gitBranch":"a\"b"}`,
		`{"typ\u0065":"user"}`, `{"ſ":1}`, `{"TYPE":"user"}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","command":["ls","-l"],"exit_code":3000000000,"changes":[{"path":"a","kind":{"type":"add"}}]}}}`,
		`{"type":"event_msg","payload":{"item":{"exit_code":-1,"command":[]}}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null,"item":[1]}}`,
		`{"timestamp":5,"type":"event_msg","payload":{"type":"token_count","info":"x"}}`,
		`{"timestamp":"t\u005a","type":"response_item","payload":"reasoning"}`,
		`{"id":"r","type":"gemini","toolCalls":[{"id":"c","args":{"a":[1]},"result":[{"text":"x"},{"functionResponse":{"id":"c","response":{"output":"o"}}}]}],"tokens":{"input":1}}`,
		`{"id":"r","content":"x","thoughts":[{"subject":"s"}],"toolCalls":[{"result":[{"text":null}]}]}`,
		`{"$set":{"lastUpdated":"t","messages":[{"id":"a","type":"user","content":[{"text":"x"}],"toolCalls":[{"id":"c"}],"thoughts":[{}]}]}}`,
		`{"sessionId":"s","projectHash":"p","startTime":"t"}`, `{"$set":{"messages":[null]}}`,
		` { "type" : "user" } `, `{}`, `[]`, `{"type":"user"`, `{"type":"user"} x`,
	} {
		seeds = append(seeds, []byte(l))
	}
	return seeds
}

// TestSchemas: every format's schema reads its seeds as encoding/json
// decodes them, and takes enough of them to prove it.
func TestSchemas(t *testing.T) {
	seeds := schemaSeeds(t)
	for _, sc := range schemaCases {
		took := 0
		for _, b := range seeds {
			if sc.c.check(t, b) {
				took++
			}
		}
		t.Logf("%s: took %d of %d seeds", sc.c.name(), took, len(seeds))
		if took < sc.took {
			t.Errorf("%s took only %d seeds, want %d at least", sc.c.name(), took, sc.took)
		}
	}
}

// FuzzSchemas holds every format's schemas to encoding/json: whatever line
// a schema reads, if it is valid JSON, encoding/json decodes into the same
// value, without an error.
func FuzzSchemas(f *testing.F) {
	for _, b := range schemaSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, sc := range schemaCases {
			sc.c.check(t, b)
		}
	})
}

// TestNewSchemaRefuses: a schema that could not read as encoding/json
// does is a mistake in the program, found when it is built.
func TestNewSchemaRefuses(t *testing.T) {
	type v struct{ S string }
	str := func(k string) Field[v] { return StringKey(k, func(x *v) *string { return &x.S }) }
	many := make([]Field[v], maxFields+1)
	for i := range many {
		many[i] = str("k" + strconv.Itoa(i))
	}
	for name, fields := range map[string][]Field[v]{
		"repeated": {str("a"), str("a")},
		"escaped":  {str(`a\"`)},
		"unicode":  {str("é")},
		"too many": many,
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			NewSchema(fields...)
		}()
	}
}
