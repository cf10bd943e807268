package jsonl_test

import (
	"encoding/json"
	"testing"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/internal/jsonl/jsonltest"
	"github.com/cdevd/cdevd/testdoubles/claudegen"
	"github.com/cdevd/cdevd/testdoubles/codexgen"
	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// This package's own schemas, held to encoding/json with jsonltest (each
// reader holds its real ones): between them, every kind of Field, nested
// as objects, pointers and slices of objects, copied and borrowed. Their keys
// are the formats' own, so that the CLIs' lines exercise them.

type (
	line struct {
		Type      string          `json:"type"`
		UUID      *string         `json:"uuid"`
		IsMeta    bool            `json:"isMeta"`
		Timestamp string          `json:"timestamp"`
		Message   *message        `json:"message"`
		Payload   payload         `json:"payload"`
		Args      json.RawMessage `json:"args"`
	}
	message struct {
		ID      string  `json:"id"`
		Role    string  `json:"role"`
		Content []block `json:"content"`
		Usage   tokens  `json:"usage"`
	}
	block struct {
		Type    string          `json:"type"`
		Text    *string         `json:"text"`
		Input   json.RawMessage `json:"input"`
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"is_error"`
	}
	tokens struct {
		Input  int64 `json:"input_tokens"`
		Output int64 `json:"output_tokens"`
	}
	payload struct {
		Type     string `json:"type"`
		ExitCode *int   `json:"exit_code"`
	}
	// facts is what a scan reads of a line: a member borrowed as written,
	// whatever its type, and one string.
	facts struct {
		Message json.RawMessage `json:"message"`
		Branch  string          `json:"gitBranch"`
	}
)

var (
	lineSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(l *line) *string { return &l.Type }),
		jsonl.StringPtrKey("uuid", func(l *line) **string { return &l.UUID }),
		jsonl.BoolKey("isMeta", func(l *line) *bool { return &l.IsMeta }),
		jsonl.StringKey("timestamp", func(l *line) *string { return &l.Timestamp }),
		jsonl.PtrKey("message", func(l *line) **message { return &l.Message }, messageSchema),
		jsonl.StructKey("payload", func(l *line) *payload { return &l.Payload }, payloadSchema),
		jsonl.RawKey("args", func(l *line) *json.RawMessage { return &l.Args }),
	)
	messageSchema = jsonl.NewSchema(
		jsonl.StringKey("id", func(m *message) *string { return &m.ID }),
		jsonl.StringKey("role", func(m *message) *string { return &m.Role }),
		jsonl.SliceKey("content", func(m *message) *[]block { return &m.Content }, blockSchema),
		jsonl.StructKey("usage", func(m *message) *tokens { return &m.Usage }, tokensSchema),
	)
	blockSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(b *block) *string { return &b.Type }),
		jsonl.StringPtrKey("text", func(b *block) **string { return &b.Text }),
		jsonl.RawKey("input", func(b *block) *json.RawMessage { return &b.Input }),
		jsonl.RawKey("content", func(b *block) *json.RawMessage { return &b.Content }),
		jsonl.BoolKey("is_error", func(b *block) *bool { return &b.IsError }),
	)
	tokensSchema = jsonl.NewSchema(
		jsonl.IntKey("input_tokens", func(t *tokens) *int64 { return &t.Input }),
		jsonl.IntKey("output_tokens", func(t *tokens) *int64 { return &t.Output }),
	)
	payloadSchema = jsonl.NewSchema(
		jsonl.StringKey("type", func(p *payload) *string { return &p.Type }),
		jsonl.FuncKey("exit_code", func(b []byte, at int, p *payload) int {
			var n int64
			e := jsonl.Int(b, at, &n)
			if e < 0 || int64(int(n)) != n {
				return -1
			}
			p.ExitCode = new(int(n))
			return e
		}),
	)
	factsSchema = jsonl.NewSchema(
		jsonl.BorrowedKey("message", func(f *facts) *json.RawMessage { return &f.Message }),
		jsonl.StringKey("gitBranch", func(f *facts) *string { return &f.Branch }),
	)
)

// The schemas held to encoding/json.
var (
	lineCase  = jsonltest.Case[line]{Label: "line", Schema: lineSchema}
	factsCase = jsonltest.Case[facts]{Label: "facts", Schema: factsSchema}
)

// seeds are the lines the readers' tests read (written by the real CLIs),
// the generators' lines, and lines where a schema must read right or
// refuse: every kind of value of another type, null, escaped, folded and
// repeated keys, spaces, objects cut short.
func seeds(t testing.TB) [][]byte {
	seeds := jsonltest.Lines(t,
		"../../runtimes/claude/transcript/testdata/lines/*.jsonl",
		"../../runtimes/codex/rollout/testdata/*.jsonl",
		"../../runtimes/gemini/chats/testdata/*.jsonl")
	cg := claudegen.New("00000000-0000-4000-8000-000000000001", "/home/user/p")
	xg := codexgen.New("00000000-0000-4000-8000-000000000002", "/home/user/p")
	gg := geminigen.New("00000000-0000-4000-8000-000000000003", "/home/user/p")
	lines := append(xg.Header(), gg.Header()...)
	for range 3 {
		lines = append(lines, cg.Message(), cg.Noise())
		lines = append(lines, xg.Turn()...)
		lines = append(lines, gg.Turn()...)
	}
	lines = append(lines,
		`{"type":"user","uuid":"u","isMeta":false,"message":{"id":"m","role":"user","content":[{"type":"text","text":"a\nb \u00e9"}],"usage":{"input_tokens":3,"output_tokens":4},"tags":["x","y"]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"a":[1,{"b":null}]},"content":[{"x":1}],"is_error":true}],"tags":[]}}`,
		`{"payload":{"type":"exec","command":["ls","-l"],"exit_code":3},"args":{"k":"v"}}`,
		`{"payload":{"command":[],"exit_code":-1}}`, `{"payload":{"exit_code":3000000000}}`,
		`{"payload":{"exit_code":1.5}}`, `{"payload":{"exit_code":null}}`, `{"payload":{"command":["a",1]}}`,
		`{"type":"user","message":{"content":[{"type":"text","Text":"T"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a","text":"b"}]}}`,
		`{"type":"user","message":{"content":[{"text":null}]}}`, `{"message":{"content":[null]}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":1.5}}}`,
		`{"type":"assistant","message":{"usage":null}}`, `{"message":null}`, `{"uuid":null}`,
		`{"type":"assistant","message":{"id":"\ud83d\ude00"}}`, `{"type":"a\"b","args":null}`,
		`{"type":5,"isMeta":"true","isSidechain":true,"message":[1],"gitBranch":"a\"b"}`,
		`{"type":"x","isMeta":1,"gitBranch":null,"message":"m"}`, `{"isMeta":true,"isSidechain":false}`,
		`{"typ\u0065":"user"}`, `{"ſ":1}`, `{"TYPE":"user"}`, `{"type":"a","type":"b"}`,
		` { "type" : "user" , "message" : { "role" : "r" } } `, `{}`, `[]`, `null`, `{"type":"user"`,
		`{"type":"user"} x`, `{"message":{"content":[{"type":"t"},]}}`, `{"args":{"a":1]}`,
	)
	for _, l := range lines {
		seeds = append(seeds, []byte(l))
	}
	return seeds
}

// TestSchemas: each schema reads its seeds as encoding/json decodes them,
// and takes enough of them to prove it (a schema that took none would
// prove nothing).
func TestSchemas(t *testing.T) {
	seeds := seeds(t)
	for _, c := range []struct {
		label string
		took  func(testing.TB, [][]byte) int
		least int
	}{{"line", lineCase.Took, 180}, {"facts", factsCase.Took, 200}} {
		took := c.took(t, seeds)
		t.Logf("%s: took %d of %d seeds", c.label, took, len(seeds))
		if took < c.least {
			t.Errorf("%s took only %d seeds, want %d at least", c.label, took, c.least)
		}
	}
}

// TestSchemaKinds: lines that use every kind of Field are read (as
// encoding/json decodes them, which Check asserts), and lines only
// encoding/json reads rightly are refused.
func TestSchemaKinds(t *testing.T) {
	for _, l := range []string{
		`{"type":"user","uuid":"u","isMeta":true,"timestamp":"t","message":{"id":"m","role":"user","content":[{"type":"text","text":"a\nb \u00e9"},{"text":""}],"usage":{"input_tokens":3,"output_tokens":4},"tags":["x","y"]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"a":[1,{"b":null}]},"content":[{"x":1}],"is_error":true}],"tags":[]}}`,
		` { "payload" : {"type":"exec","command":["ls","-l"],"exit_code":3},"args":{"k":"v"}} `,
	} {
		if !lineCase.Check(t, []byte(l)) {
			t.Errorf("line refused %s", l)
		}
	}
	if l := `{"type":5,"isMeta":"true","isSidechain":true,"message":[1],"gitBranch":"main"}`; !factsCase.Check(t, []byte(l)) {
		t.Errorf("facts refused %s", l)
	}
	for _, l := range []string{
		`{"type":"a","type":"b"}`, `{"TYPE":"user"}`, `{"typ\u0065":"user"}`, `{"ſ":1}`, `{"type":"user"} x`,
		`{"type":1}`, `{"uuid":1}`, `{"isMeta":"true"}`, `{"payload":{"type":["a"]}}`,
		`{"payload":{"exit_code":1.5}}`, `{"message":{"usage":{"input_tokens":1e3}}}`, `{"args":null}`,
		`{"message":{"content":[{"text":"\ud83d\ude00"}]}}`, `{"message":{"content":[{"type":"t"},]}}`,
	} {
		if lineCase.Check(t, []byte(l)) {
			t.Errorf("line read %s", l)
		}
	}
	for _, l := range []string{`{"gitBranch":1}`, `{"message":1,"message":2}`, `{"gitbranch":"x"}`} {
		if factsCase.Check(t, []byte(l)) {
			t.Errorf("facts read %s", l)
		}
	}
}

// FuzzSchemas: whatever line a schema reads, if it is valid JSON,
// encoding/json decodes into the same value, without an error.
func FuzzSchemas(f *testing.F) {
	for _, b := range seeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lineCase.Check(t, b)
		factsCase.Check(t, b)
	})
}
